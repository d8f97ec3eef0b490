// The Live page's small helpers: its routes (resolved against this module's URL, which
// lies beside index.js under TensorBoard and the standalone server alike), elements,
// selects, JSON requests and numbers.

/** The URL of a route of the plugin's app, with query parameters. */
export function route(path, params = {}) {
  const url = new URL(path, import.meta.url);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, String(value));
  return url;
}

/** A new element with attributes and children (strings become text). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key in node) node[key] = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

/** A select's options ([value, label] pairs) with `chosen` selected; rebuilt only when
 * they changed, so a list refreshed in the background does not close one a user opened. */
export function setOptions(select, options, chosen) {
  const key = JSON.stringify(options);
  if (select.dataset.options !== key) {
    select.dataset.options = key;
    select.replaceChildren(...options.map(([value, label]) => el("option", { value }, label)));
  }
  if (chosen !== null && chosen !== undefined) select.value = chosen;
}

export async function getJson(url, init) {
  const response = await fetch(url, init);
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
  return body;
}

/** A number in a few significant digits; the stream sends a non-finite scalar as the
 * string "NaN", "Infinity" or "-Infinity" (JSON has no such numbers), shown as it is. */
export const formatNumber = (value) => {
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 1e4 || (value !== 0 && Math.abs(value) < 1e-3)
    ? value.toExponential(3) : Number(value.toPrecision(5)).toString();
};

/** How long ago, for a person: milliseconds under a second (a live frame's delay), then
 * seconds, minutes, hours, days (a run written long ago, as the demo's). */
export const formatAge = (seconds) => {
  if (seconds < 1) return `${(seconds * 1000).toFixed(0)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(0)} min`;
  if (seconds < 86400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
};
