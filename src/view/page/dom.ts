/**
 * A few DOM helpers for the page: elements built with text content only (never innerHTML with
 * data), so nothing from a results file can inject markup.
 */
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** An HTML element with attributes (`on…` functions become listeners) and children (strings become text). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (strings and numbers as text). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element. */
export function s(tag: string, attributes: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  append(element, children);
  return element;
}

/** A number with `digits` decimals, or "n/a". */
export function fmt(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits);
}

/** Money: "$0.0123", or "unknown" for null (never 0 for unknown). */
export function money(value: number | null | undefined): string {
  return value === null || value === undefined ? "unknown" : `$${value.toFixed(4)}`;
}

/** The colour of a reward: red (0) through amber to green (1). */
export function rewardColour(reward: number | null): string {
  if (reward === null) return "#9aa0a6";
  const r = Math.max(0, Math.min(1, reward));
  if (r >= 1 - 1e-6) return "#2e9e4f";
  if (r <= 1e-6) return "#d64541";
  return "#e0a030";
}

/** JSON for display (two-space indent). */
export function pretty(value: unknown): string {
  return value === undefined ? "(absent)" : JSON.stringify(value, null, 2);
}

/** Lists longer than this render only the rows in view (and a few around them). */
export const VIRTUAL_FROM = 200;
const OVERSCAN = 15;

/**
 * Fills `body` with the rows of `scroller`'s visible window only, redrawn on scroll: a list of
 * 10,000 rows costs the DOM of a few dozen. Rows must have the fixed height `rowHeight` (the style
 * sheet's); a spacer above and below keeps the scroll bar true. Short lists render whole.
 */
export function virtualRows(
  scroller: HTMLElement,
  body: HTMLElement,
  count: number,
  rowHeight: number,
  viewHeight: number,
  row: (index: number) => HTMLElement,
  spacer: (height: number) => HTMLElement,
): void {
  if (count <= VIRTUAL_FROM) {
    append(
      body,
      Array.from({ length: count }, (_, index) => row(index)),
    );
    return;
  }
  scroller.classList.add("virtual");
  scroller.setAttribute("data-virtual-rows", String(count));
  let drawn = "";
  const draw = () => {
    const top = scroller.scrollTop;
    const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
    const last = Math.min(count, Math.ceil((top + (scroller.clientHeight || viewHeight)) / rowHeight) + OVERSCAN);
    if (drawn === `${first}:${last}`) return;
    drawn = `${first}:${last}`;
    const rows: HTMLElement[] = [spacer(first * rowHeight)];
    for (let index = first; index < last; index++) rows.push(row(index));
    rows.push(spacer((count - last) * rowHeight));
    body.replaceChildren(...rows);
  };
  let pending = false;
  scroller.addEventListener("scroll", () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  });
  draw();
}
