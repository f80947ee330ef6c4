import { resolve, sep } from "node:path";

/**
 * Row labels for several results files in one table: the file name without `.json`, with as many of
 * its last folders as it takes to tell the files apart, numbered (`[1] …`) so each footer can say
 * which row it belongs to. One file keeps its plain name.
 */
export function resultsLabels(paths: readonly string[]): string[] {
  const parts = paths.map((path) => resolve(path).split(sep).filter(Boolean));
  const name = (index: number, depth: number) =>
    parts[index]
      .slice(-1 - depth)
      .join("/")
      .replace(/\.json$/, "");
  if (paths.length === 1) return [name(0, 0)];
  return paths.map((_, index) => {
    let depth = 0;
    const clashes = () => paths.some((__, other) => other !== index && name(other, depth) === name(index, depth));
    while (depth < parts[index].length - 1 && clashes()) depth++;
    return `[${index + 1}] ${name(index, depth)}`;
  });
}
