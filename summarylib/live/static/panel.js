// One image of the Live page: a canvas showing the newest frame of a tag as the stream
// announces frames (fetched and decoded two at a time at most, never queued), the band
// legend parsed from the frame's description, and the hover line (layer, index, range,
// value). See index.js for the page around it.

import { el, formatAge, formatNumber, route } from "./dom.js";

export const MAX_FRAMES = 5000;
// Frames a panel fetches and decodes at once: two, so that the next frame's fetch overlaps
// this one's decode; more would only queue (each panel draws its newest frame).
const MAX_LOADS = 2;
// Gray levels 1..255 hold a band's values (see summarylib/ops/tensor_grid.py); 0 is none.
const LEVELS = 254;

/** The bands of a grid image's description: its Markdown table, one object per row keyed
 * by the table's headers, with `first` and `last` pixel rows, `name` and `shape` parsed
 * (see GridLayout.description in summarylib/ops/tensor_grid.py), and `low`/`high` when the
 * table has a range column ("low..high", or low and high columns). Empty for text that
 * holds no such table (an image tag that is no grid). */
export function parseBands(description) {
  const lines = (description || "").split("\n").map((line) => line.trim()).filter((line) => line.startsWith("|"));
  if (lines.length < 2) return [];
  const cells = (line) => line.replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim());
  const headers = cells(lines[0]).map((header) => header.toLowerCase());
  const column = (...names) => headers.findIndex((header) => names.includes(header));
  const rows = column("pixel rows", "rows");
  const name = column("tensor", "layer", "name");
  if (rows < 0 || name < 0) return [];
  const shape = column("shape");
  const range = column("range", "value range", "values");
  const low = column("low", "min");
  const high = column("high", "max");
  const bands = [];
  for (const line of lines.slice(2)) {
    const row = cells(line);
    const span = /^(\d+)\s*-\s*(\d+)$/.exec(row[rows] || "");
    if (!span) continue;
    const band = { first: Number(span[1]), last: Number(span[2]), name: row[name], cells: {} };
    headers.forEach((header, index) => { band.cells[header] = row[index]; });
    try {
      band.shape = shape >= 0 ? JSON.parse(row[shape]) : null;
    } catch {
      band.shape = null;
    }
    if (range >= 0) {
      const bounds = /^\s*(\S+?)\s*(?:\.\.|…|to)\s*(\S+)\s*$/.exec(row[range] || "");
      if (bounds) [band.low, band.high] = [Number(bounds[1]), Number(bounds[2])];
    } else if (low >= 0 && high >= 0) {
      [band.low, band.high] = [Number(row[low]), Number(row[high])];
    }
    bands.push(band);
  }
  return bands;
}

/** A flat C-order index as the multi-index of `shape` ("[3, 17]"). */
function unravel(index, shape) {
  if (!Array.isArray(shape) || shape.length === 0) return "";
  const parts = [];
  let rest = index;
  for (let axis = shape.length - 1; axis >= 0; axis--) {
    const size = Math.max(1, shape[axis]);
    parts.unshift(rest % size);
    rest = Math.floor(rest / size);
  }
  return `[${parts.join(", ")}]`;
}

/** One image shown: a canvas with the newest frame of `tag`, its legend and hover line. */
export class Panel {
  constructor(live, title) {
    this.live = live;
    this.tag = null;
    this.meta = null; // the frame drawn
    this.pending = null; // the newest frame that arrived while MAX_LOADS were loading
    this.loads = 0; // frames being fetched or decoded
    this.started = 0; // loads started, in the order their frames were announced
    this.painted = 0; // the order of the load drawn last
    this.bands = [];
    this.description = null;
    this.title = el("h3", {}, title);
    this.canvas = el("canvas", { width: 1, height: 1, hidden: true });
    this.empty = el("div", { class: "sl-empty" }, "no frame yet");
    this.info = el("div", { class: "sl-meta" });
    this.legend = el("div", { class: "sl-legend" });
    this.hover = el("div", { class: "sl-hover" });
    this.node = el("section", { class: "sl-panel" },
      el("div", { class: "sl-canvas-box" }, this.title, this.empty, this.canvas, this.info),
      el("div", { class: "sl-legend-box" }, this.legend, this.hover));
    this.context = this.canvas.getContext("2d");
    this.pointer = null; // the image pixel under the pointer, while it is over the canvas
    this.canvas.addEventListener("mousemove", (event) => this.onHover(event));
    this.canvas.addEventListener("mouseleave", () => this.clearHover());
  }

  /** Show `tag` from now on (its newest frame at once, if one is known). */
  show(tag) {
    if (tag === this.tag) return;
    this.tag = tag;
    this.meta = null;
    this.pending = null;
    this.canvas.hidden = true;
    this.canvas.dataset.tag = tag || "";
    this.empty.hidden = false;
    this.empty.textContent = tag ? "no frame yet" : "no image";
    this.info.textContent = "";
    this.setDescription(null);
    const newest = tag && this.live.newest.get(tag);
    if (newest) this.offer(newest);
  }

  /** A new frame of this panel's tag: load it now (fetch and decode; up to MAX_LOADS at
   * once, so one frame's fetch overlaps the one before it's decode), or next. */
  offer(meta) {
    if (meta.tag !== this.tag) return;
    if (this.loads >= MAX_LOADS) {
      if (this.pending) this.live.state.dropped += 1;
      this.pending = meta;
      return;
    }
    this.load(meta);
  }

  async load(meta) {
    this.loads += 1;
    const order = ++this.started;
    try {
      const started = performance.now();
      const response = await fetch(route("frame", { run: meta.run, tag: meta.tag, frame: meta.frame }));
      if (!response.ok) throw new Error(`frame ${meta.frame} of ${meta.tag}: ${response.status}`);
      const blob = await response.blob();
      const fetched = performance.now();
      const bitmap = await createImageBitmap(blob);
      const timing = { fetch_ms: fetched - started, decode_ms: performance.now() - fetched };
      // a frame announced later may have been drawn already: this one is then stale
      if (meta.tag === this.tag && meta.run === this.live.run && order > this.painted) {
        this.painted = order;
        this.paint(meta, bitmap, timing);
      } else {
        this.live.state.dropped += 1;
      }
      bitmap.close();
    } catch (error) {
      this.live.state.errors.push(String(error));
      if (this.live.state.errors.length > 100) this.live.state.errors.shift();
    } finally {
      this.loads -= 1;
    }
    const next = this.pending;
    this.pending = null;
    if (next && next.tag === this.tag) this.load(next);
  }

  paint(meta, bitmap, timing) {
    const canvas = this.canvas;
    if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
      canvas.width = bitmap.width;
      canvas.height = bitmap.height;
    }
    this.context.drawImage(bitmap, 0, 0);
    canvas.hidden = false;
    this.empty.hidden = true;
    canvas.dataset.step = String(meta.step);
    canvas.dataset.frame = String(meta.frame);
    this.meta = meta;
    const shownAt = Date.now() / 1000;
    const frames = this.live.state.frames;
    frames.push({ tag: meta.tag, step: meta.step, wall_time: meta.wall_time, frame: meta.frame, shown_at: shownAt,
      announced_at: meta.announced_at, ...timing });
    if (frames.length > MAX_FRAMES) frames.splice(0, frames.length - MAX_FRAMES);
    const age = Math.max(0, shownAt - meta.wall_time);
    this.info.textContent = `step ${meta.step} · ${bitmap.width}×${bitmap.height} · ` +
      `shown ${formatAge(age)} after the step`;
    if (meta.description !== this.description) this.setDescription(meta.description);
    if (this.pointer) this.describe(this.pointer.x, this.pointer.y); // the new frame's value there
  }

  setDescription(description) {
    this.description = description;
    this.bands = parseBands(description);
    this.legend.replaceChildren();
    this.hover.textContent = "";
    if (!this.bands.length) return;
    const ranged = this.bands.some((band) => band.low !== undefined);
    const head = el("tr", {}, el("th", {}, "tensor"), el("th", {}, "shape"), el("th", {}, "rows"));
    if (ranged) head.append(el("th", {}, "range"));
    const table = el("table", {}, head);
    for (const band of this.bands) {
      band.row = el("tr", {}, el("td", {}, band.name), el("td", {}, band.shape ? `[${band.shape.join(", ")}]` : ""),
        el("td", {}, `${band.first}-${band.last}`));
      if (ranged) {
        band.row.append(el("td", {}, band.low !== undefined
          ? `${formatNumber(band.low)}..${formatNumber(band.high)}` : ""));
      }
      table.append(band.row);
    }
    this.legend.append(table);
    if (this.pointer) this.describe(this.pointer.x, this.pointer.y);
  }

  onHover(event) {
    const box = this.canvas.getBoundingClientRect();
    const x = Math.floor(((event.clientX - box.left) / box.width) * this.canvas.width);
    const y = Math.floor(((event.clientY - box.top) / box.height) * this.canvas.height);
    if (x < 0 || y < 0 || x >= this.canvas.width || y >= this.canvas.height) return this.clearHover();
    this.pointer = { x, y };
    this.describe(x, y);
  }

  /** The band, element and value at pixel (x, y) of the frame shown, in the hover line. */
  describe(x, y) {
    if (!this.meta || !this.bands.length || x >= this.canvas.width || y >= this.canvas.height) return;
    const band = this.bands.find((candidate) => candidate.first <= y && y <= candidate.last);
    for (const other of this.bands) other.row.classList.toggle("sl-hot", other === band);
    if (!band) {
      this.hover.textContent = `row ${y}: separator`;
      return;
    }
    const index = (y - band.first) * this.canvas.width + x;
    const size = Array.isArray(band.shape) ? band.shape.reduce((a, b) => a * b, 1) : Infinity;
    const gray = this.context.getImageData(x, y, 1, 1).data[0];
    const lines = [`layer ${band.name}`];
    if (index >= size) {
      lines.push(`pixel (${x}, ${y}): padding after the band's ${size} values`);
    } else {
      lines.push(`index ${index} ${unravel(index, band.shape)}`);
      if (band.low !== undefined) {
        lines.push(`range ${formatNumber(band.low)}..${formatNumber(band.high)}`);
        lines.push(gray === 0 ? "value: NaN or ±Inf"
          : `value ≈ ${formatNumber(band.low + ((gray - 1) / LEVELS) * (band.high - band.low))} (gray ${gray})`);
      } else {
        lines.push(`gray ${gray} of 1..255 (the band's 0.5th..99.5th percentile)`);
      }
    }
    this.hover.textContent = lines.join("\n");
  }

  clearHover() {
    this.pointer = null;
    for (const band of this.bands) band.row.classList.remove("sl-hot");
    this.hover.textContent = "";
  }
}
