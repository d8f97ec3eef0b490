// The Live dashboard's page: a run's newest watch views and images as they are written,
// with the band legend under the pointer, the run's newest scalars, and the views asked of
// the run's watch (the control file, through POST control).
//
// Plain ES modules (this one, panel.js for one image shown, dom.js for the helpers) with
// no build step and no dependencies, loaded the same way by
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

import { el, formatAge, formatNumber, getJson, route, setOptions } from "./dom.js";
import { MAX_FRAMES, Panel } from "./panel.js";

// The watch's views: the control file's names, and the image tag each is written under.
const VIEWS = [
  ["parameters", "images/parameters"],
  ["gradients", "images/gradients"],
  ["activations", "images/activations"],
  ["variance", "images/parameters_variance"],
];
const VIEW_TAGS = new Set(VIEWS.map(([, tag]) => tag));
const RUNS_REFRESH_MS = 10000;

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
    this.sayWhetherLive(info);
    getJson(route("control", { run })).then((request) => this.showRequest(request)).catch(() => {});
    this.openStream(run);
  }

  /** A run that writes no watch views (no live/ of a watch(..., live=True)) says so in
   * the views' panels, and how to start one, instead of "no frame yet" for ever. */
  sayWhetherLive(info) {
    if (!info || info.live) return;
    for (const panel of this.panels.values()) {
      panel.empty.textContent = "this run writes no live views: train it under " +
        "summarylib.integrations.torch.watch(model, live=True) (or Keras's Watch(live=True))";
    }
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
        el("td", { class: "sl-num" }, formatAge(Math.max(0, now - wallTime))))));
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
