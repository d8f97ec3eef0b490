// The Live dashboard's page: a run's newest watch views and images as they are written,
// with the band legend under the pointer, the run's newest scalars, and the views asked of
// the run's watch (the control file, through POST control).
//
// A plain ES module with no build step and no dependencies, loaded the same way by
// TensorBoard (its dynamic-plugin iframe imports it and calls render()) and by the
// standalone server (python -m summarylib.live, whose index.html does the same). Every
// route resolves against this module's own URL, so the page works under TensorBoard's
// /data/plugin/summarylib_live/ and at the standalone server's root alike.
//
// Frames: the server pushes each new image's number on the stream (Server-Sent Events);
// a panel fetches that frame's PNG, decodes it off the main thread (createImageBitmap)
// and draws it, two frames at a time at most (one fetched while the other decodes). A
// frame that arrives while two are loading replaces the one waiting, if any, and a frame
// whose load ends after a later one's is not drawn (both counted in `dropped`): a panel
// never falls behind by queueing, it shows the newest frame as soon as it can.
//
// window.summarylibLive is the page's state for tests and benchmarks: `frames` lists the
// frames drawn ({tag, step, wall_time, frame, shown_at}, shown_at = Date.now() / 1000
// when drawn; the last MAX_FRAMES of them), with where the time went: announced_at (the
// stream's event came), fetch_ms (its PNG fetched) and decode_ms (decoded).

// The watch's views: the control file's names, and the image tag each is written under.
const VIEWS = [
  ["parameters", "images/parameters"],
  ["gradients", "images/gradients"],
  ["activations", "images/activations"],
  ["variance", "images/parameters_variance"],
];
const VIEW_TAGS = new Set(VIEWS.map(([, tag]) => tag));
const MAX_FRAMES = 5000;
// Frames a panel fetches and decodes at once: two, so that the next frame's fetch overlaps
// this one's decode; more would only queue (each panel draws its newest frame).
const MAX_LOADS = 2;
const RUNS_REFRESH_MS = 10000;
// Gray levels 1..255 hold a band's values (see summarylib/ops/tensor_grid.py); 0 is none.
const LEVELS = 254;

const STYLE = `
.sl-live [hidden] { display: none !important; }
.sl-live { font: 13px/1.4 Roboto, system-ui, sans-serif; color: #212121; margin: 12px; }
.sl-live header { display: flex; flex-wrap: wrap; gap: 16px; align-items: center;
  padding-bottom: 10px; border-bottom: 1px solid #e0e0e0; margin-bottom: 12px; }
.sl-live label { white-space: nowrap; }
.sl-live select, .sl-live input[type=number] { font: inherit; padding: 2px 4px; }
.sl-live input[type=number] { width: 6em; }
.sl-live .sl-status { color: #616161; }
.sl-live .sl-status.sl-error { color: #c62828; }
.sl-live .sl-panels { display: flex; flex-wrap: wrap; gap: 16px; }
.sl-live .sl-panel { border: 1px solid #e0e0e0; border-radius: 4px; padding: 8px;
  display: flex; gap: 10px; align-items: flex-start; }
.sl-live .sl-panel h3 { margin: 0 0 4px; font-size: 14px; font-weight: 500; }
.sl-live .sl-canvas-box { width: 380px; flex: none; }
.sl-live canvas { width: 380px; image-rendering: pixelated; background: #000;
  cursor: crosshair; display: block; }
.sl-live .sl-meta { color: #616161; font-size: 12px; min-height: 1.4em; }
.sl-live .sl-empty { width: 380px; height: 120px; display: flex; align-items: center;
  justify-content: center; color: #9e9e9e; background: #fafafa; }
.sl-live .sl-legend-box { width: 270px; flex: none; }
.sl-live .sl-legend { font-size: 12px; }
.sl-live .sl-legend table, .sl-live .sl-scalars table { border-collapse: collapse; }
.sl-live .sl-legend td, .sl-live .sl-legend th, .sl-live .sl-scalars td,
.sl-live .sl-scalars th { padding: 1px 6px; text-align: left; border-bottom: 1px solid #eee; }
.sl-live .sl-legend td:last-child { overflow-wrap: anywhere; }
.sl-live .sl-legend tr.sl-hot { background: #fff3e0; }
.sl-live .sl-hover { margin-top: 6px; min-height: 4.2em; white-space: pre-line;
  font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
.sl-live .sl-scalars { margin-top: 16px; }
.sl-live .sl-scalars td.sl-num { text-align: right; font-family: ui-monospace, monospace; }
`;

/** The URL of a route of the plugin's app, with query parameters. */
function route(path, params = {}) {
  const url = new URL(path, import.meta.url);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, String(value));
  return url;
}

/** A new element with attributes and children (strings become text). */
function el(tag, attributes = {}, ...children) {
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
function setOptions(select, options, chosen) {
  const key = JSON.stringify(options);
  if (select.dataset.options !== key) {
    select.dataset.options = key;
    select.replaceChildren(...options.map(([value, label]) => el("option", { value }, label)));
  }
  if (chosen !== null && chosen !== undefined) select.value = chosen;
}

async function getJson(url, init) {
  const response = await fetch(url, init);
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
  return body;
}

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

/** A number in a few significant digits; the stream sends a non-finite scalar as the
 * string "NaN", "Infinity" or "-Infinity" (JSON has no such numbers), shown as it is. */
const formatNumber = (value) => {
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 1e4 || (value !== 0 && Math.abs(value) < 1e-3)
    ? value.toExponential(3) : Number(value.toPrecision(5)).toString();
};

/** One image shown: a canvas with the newest frame of `tag`, its legend and hover line. */
class Panel {
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
      `shown ${(age * 1000).toFixed(0)} ms after the step`;
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

/** The page: run picker, view toggles and interval, panels, scalars; one stream at a time. */
class LivePage {
  constructor(root) {
    this.root = root;
    this.run = null;
    this.runs = [];
    this.stream = null;
    this.sending = false; // a POST of the controls in flight
    this.unsent = false; // the controls changed since that POST was sent
    this.newest = new Map(); // tag -> the newest frame announced for the run
    this.scalars = new Map(); // tag -> [step, wall_time, value]
    this.state = { frames: [], dropped: 0, errors: [], run: null, page: this };
    this.runPicker = el("select", { title: "run" });
    this.runPicker.addEventListener("change", () => this.select(this.runPicker.value));
    this.toggles = new Map(VIEWS.map(([view]) => [view, el("input", { type: "checkbox", value: view })]));
    this.interval = el("input", { type: "number", min: 1, value: 1, step: 1, title: "log a view every N steps" });
    this.status = el("span", { class: "sl-status" });
    this.tagPicker = el("select", { title: "other image tags of the run" });
    this.tagPicker.addEventListener("change", () => this.other.show(this.tagPicker.value || null));
    for (const input of [...this.toggles.values(), this.interval]) {
      input.addEventListener("change", () => this.sendRequest());
    }
    this.panels = new Map(VIEWS.map(([view, tag]) => {
      const panel = new Panel(this, view);
      panel.show(tag);
      return [tag, panel];
    }));
    this.other = new Panel(this, "image");
    this.other.title.replaceChildren("image ", this.tagPicker);
    this.scalarTable = el("tbody");
    root.append(el("style", {}, STYLE), el("div", { class: "sl-live" },
      el("header", {},
        el("label", {}, "Run ", this.runPicker),
        el("span", {}, "Views: ", ...VIEWS.map(([view]) => el("label", {}, this.toggles.get(view), ` ${view} `))),
        el("label", {}, "every ", this.interval, " steps"),
        this.status),
      el("div", { class: "sl-panels" }, ...[...this.panels.values()].map((panel) => panel.node), this.other.node),
      el("section", { class: "sl-scalars" }, el("h3", {}, "Scalars (newest)"),
        el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "tag"), el("th", {}, "step"),
          el("th", {}, "value"), el("th", {}, "age"))), this.scalarTable))));
  }

  setStatus(text, error = false) {
    this.status.textContent = text;
    this.status.classList.toggle("sl-error", error);
  }

  async refreshRuns() {
    try {
      const { runs } = await getJson(route("runs"));
      runs.sort((a, b) => (b.live - a.live) || a.run.localeCompare(b.run));
      this.runs = runs;
      const chosen = this.run ?? (runs[0] && runs[0].run);
      setOptions(this.runPicker, runs.map((run) => [run.run, run.live ? `${run.run} (live)` : run.run]), chosen);
      if (this.run === null && chosen !== undefined) this.select(chosen);
      else this.fillTagPicker();
      if (!runs.length) this.setStatus("no runs with images or watch views in the logdir yet");
    } catch (error) {
      this.setStatus(`runs: ${error.message}`, true);
    }
  }

  /** Show run `run`: its request in the controls, a new stream, empty panels. */
  select(run) {
    if (run === this.run) return;
    this.run = this.state.run = run;
    if (this.stream) this.stream.close();
    this.newest.clear();
    this.scalars.clear();
    this.renderScalars();
    for (const panel of [...this.panels.values(), this.other]) {
      const tag = panel.tag;
      panel.tag = null;
      panel.show(panel === this.other ? null : tag);
    }
    this.fillTagPicker();
    const info = this.runs.find((candidate) => candidate.run === run);
    this.showRequest(info ? info.request : null);
    getJson(route("control", { run })).then((request) => this.showRequest(request)).catch(() => {});
    this.openStream(run);
  }

  fillTagPicker() {
    const info = this.runs.find((candidate) => candidate.run === this.run);
    const tags = new Set((info ? info.image_tags : []).filter((tag) => !VIEW_TAGS.has(tag)));
    for (const tag of this.newest.keys()) if (!VIEW_TAGS.has(tag)) tags.add(tag);
    const chosen = this.other.tag ?? [...tags].sort()[0] ?? null;
    setOptions(this.tagPicker, [...tags].sort().map((tag) => [tag, tag]), chosen);
    if (chosen !== this.other.tag) this.other.show(chosen);
    this.other.node.hidden = tags.size === 0;
  }

  showRequest(request) {
    const views = new Set(request ? request.views : []);
    for (const [view, box] of this.toggles) box.checked = views.has(view);
    if (request) this.interval.value = request.log_freq;
  }

  /** The toggles and interval as the run's request (the control file the watch polls).
   * One POST at a time, the last sent holding the controls as they are now: two POSTs in
   * flight at once could be written in either order, leaving an older request standing. */
  async sendRequest() {
    this.unsent = true;
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.unsent) {
        this.unsent = false;
        await this.postRequest();
      }
    } finally {
      this.sending = false;
    }
  }

  async postRequest() {
    const views = [...this.toggles].filter(([, box]) => box.checked).map(([view]) => view);
    const logFreq = Math.max(1, Math.floor(Number(this.interval.value) || 1));
    this.interval.value = logFreq;
    try {
      const request = await getJson(route("control", { run: this.run }), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ views, log_freq: logFreq }),
      });
      this.setStatus(views.length ? `asked for ${views.join(", ")} every ${logFreq} steps` : "views off");
      this.state.request = request;
    } catch (error) {
      this.setStatus(`control: ${error.message}`, true);
    }
  }

  openStream(run) {
    const stream = new EventSource(route("stream", { run }));
    this.stream = stream;
    stream.addEventListener("open", () => {
      if (this.stream === stream) this.setStatus(`following ${run}`);
    });
    stream.addEventListener("error", () => {
      if (this.stream === stream) this.setStatus("stream interrupted; reconnecting…", true);
    });
    stream.addEventListener("frame", (event) => {
      if (this.stream !== stream) return;
      const meta = JSON.parse(event.data);
      if (meta.run !== this.run) return;
      meta.announced_at = Date.now() / 1000;
      const known = this.newest.has(meta.tag);
      this.newest.set(meta.tag, meta);
      const panel = this.panels.get(meta.tag) ?? (meta.tag === this.other.tag ? this.other : null);
      if (panel) panel.offer(meta);
      else if (!known) this.fillTagPicker();
    });
    stream.addEventListener("scalars", (event) => {
      if (this.stream !== stream) return;
      const data = JSON.parse(event.data);
      if (data.run !== this.run) return;
      for (const [tag, value] of Object.entries(data.values)) this.scalars.set(tag, value);
      this.renderScalars();
    });
  }

  renderScalars() {
    const now = Date.now() / 1000;
    this.scalarTable.replaceChildren(...[...this.scalars].sort(([a], [b]) => a.localeCompare(b)).map(
      ([tag, [step, wallTime, value]]) => el("tr", {}, el("td", {}, tag), el("td", { class: "sl-num" }, String(step)),
        el("td", { class: "sl-num" }, formatNumber(value)),
        el("td", { class: "sl-num" }, `${Math.max(0, now - wallTime).toFixed(1)} s`))));
  }
}

/** TensorBoard's dynamic-plugin entry point (and the standalone page's): build the
 * dashboard into document.body and start following the first run (live runs first). */
export async function render() {
  const page = new LivePage(document.body);
  window.summarylibLive = page.state;
  await page.refreshRuns();
  setInterval(() => page.refreshRuns(), RUNS_REFRESH_MS);
  return page;
}
