/**
 * Bundles the page's TypeScript (`src/view/page/main.ts`) into one minified IIFE with esbuild. Used by
 * the build (`scripts/build/bundle-view.mjs` writes `dist/src/view/page.js`) and by a checkout running
 * from its sources; the published package only reads the built file.
 */
export async function bundlePage(entry: string): Promise<string> {
  const { build } = await import("esbuild");
  const result = await build({ entryPoints: [entry], bundle: true, write: false, format: "iife", target: "es2022", platform: "browser", minify: true, legalComments: "none", logLevel: "silent" });
  return result.outputFiles[0].text;
}
