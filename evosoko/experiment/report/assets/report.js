/* evosoko report: draws the boards, players, curves and plots of report.html from its data.
   Everything from files is set with textContent, never parsed as HTML. */
(function () {
  "use strict";

  const DATA = JSON.parse(document.getElementById("report-data").textContent);
  const COLOURS = {
    floor: "#ece4cf", wall: "#555b66", goal: "#d1495b", box: "#c98a2c", boxOnGoal: "#3a9a5b",
    boxEdge: "#3d2b12", player: "#2f6bd8", mark: "#ffffff",
  };
  const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#7f7f7f", "#bcbd22"];
  const SPEEDS = [1, 2, 5, 10, 20, 50, 100];
  /* Given holes: box i and its hole in one colour (as evosoko.sokoban.holes.render draws them). */
  const PAIR_COLOURS = ["#d1495b", "#2e86ab", "#3a9a5b", "#8e5cc4", "#e07a1f", "#17a398", "#b5487f",
    "#6b7a1f", "#5b6ee1", "#a0522d"];
  const FILLED_HOLE = "#8a8270";

  // ---- small helpers ---------------------------------------------------------------------------
  function el(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value !== null && value !== undefined) node.setAttribute(key, value);
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function fmt(value, digits) {
    if (value === null || value === undefined) return "–";
    if (Number.isInteger(value)) return value.toLocaleString("en-US");
    return Number(value.toPrecision(digits || 3)).toString();
  }
  function power(value) {  // 0.01 → "0.01", 1000 → "1,000", 1e6 → "10⁶"
    if (value >= 0.001 && value < 1e5) return fmt(value, 1);
    const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹";
    const exponent = Math.round(Math.log10(value));
    const text = String(Math.abs(exponent)).split("").map((d) => digits[Number(d)]).join("");
    return `10${exponent < 0 ? "⁻" : ""}${text}`;
  }
  function levelName(level) {
    return level.name === String(level.index) ? `level ${level.index}` : `level ${level.index} · ${level.name}`;
  }
  function colour(position) { return PALETTE[((position % PALETTE.length) + PALETTE.length) % PALETTE.length]; }

  // ---- levels and replays ----------------------------------------------------------------------
  /* pairs (given holes only): [[box cell, hole cell], ...] by box number; then boxes[cell] holds
     the number + 1 of the box there and a box pushed into its own hole vanishes. */
  function parseLevel(rows, pairs) {
    const h = rows.length;
    const w = Math.max(...rows.map((row) => row.length));
    const n = w * h;
    const walls = new Uint8Array(n), goals = new Uint8Array(n), boxes = new Uint8Array(n);
    let player = -1;
    for (let r = 0; r < h; r++) {
      for (let c = 0; c < w; c++) {
        const ch = rows[r][c] || " ";
        const cell = r * w + c;
        if (ch === "#") walls[cell] = 1;
        if (ch === "." || ch === "*" || ch === "+") goals[cell] = 1;
        if (ch === "$" || ch === "*") boxes[cell] = 1;
        if (ch === "@" || ch === "+") player = cell;
      }
    }
    const inside = new Uint8Array(n);
    const stack = player >= 0 ? [player] : [];
    if (player >= 0) inside[player] = 1;
    while (stack.length) {
      const cell = stack.pop();
      const r = Math.floor(cell / w), c = cell % w;
      for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
        const rr = r + dr, cc = c + dc;
        if (rr < 0 || rr >= h || cc < 0 || cc >= w) continue;
        const next = rr * w + cc;
        if (!walls[next] && !inside[next]) { inside[next] = 1; stack.push(next); }
      }
    }
    let holes = null;
    if (pairs && pairs.length) {
      holes = pairs.map((pair) => pair[1]);
      pairs.forEach((pair, number) => { boxes[pair[0]] = number + 1; });
    }
    return { w, h, walls, goals, inside, boxes, player, holes, deltas: [-w, w, -1, 1] };
  }

  /* Move the box on `from` to `to`; it vanishes in its own hole (given holes). Returns the
     number + 1 of a box that vanished, else 0. */
  function moveBox(level, boxes, from, to) {
    const id = boxes[from];
    boxes[from] = 0;
    if (level.holes && level.holes[id - 1] === to) return id;
    boxes[to] = id;
    return 0;
  }

  /* A solution replayed on its level: forward and back one step at a time, or seek. */
  class Track {
    constructor(level, lurd) {
      this.level = level;
      this.dirs = [];
      this.pushed = [];
      this.vanished = [];  // per step: the number + 1 of a box that vanished in it, else 0
      const boxes = level.boxes.slice();
      let player = level.player;
      for (const letter of lurd || "") {
        const d = "udlr".indexOf(letter.toLowerCase());
        if (d < 0) break;
        const delta = level.deltas[d], target = player + delta;
        if (!level.inside[target]) break;
        let push = false;
        if (boxes[target]) {
          const beyond = target + delta;
          if (!level.inside[beyond] || boxes[beyond]) break;
          this.vanished.push(moveBox(level, boxes, target, beyond));
          push = true;
        } else {
          this.vanished.push(0);
        }
        player = target;
        this.dirs.push(d);
        this.pushed.push(push);
      }
      this.length = this.dirs.length;
      this.illegal = this.length < (lurd || "").length;
      this.reset();
    }
    reset() {
      this.boxes = this.level.boxes.slice();
      this.player = this.level.player;
      this.step = 0;
      this.pushes = 0;
    }
    forward() {
      if (this.step >= this.length) return false;
      const delta = this.level.deltas[this.dirs[this.step]];
      const target = this.player + delta;
      if (this.pushed[this.step]) { moveBox(this.level, this.boxes, target, target + delta); this.pushes++; }
      this.player = target;
      this.step++;
      return true;
    }
    back() {
      if (this.step <= 0) return false;
      this.step--;
      const delta = this.level.deltas[this.dirs[this.step]];
      if (this.pushed[this.step]) {
        const id = this.vanished[this.step] || this.boxes[this.player + delta];
        this.boxes[this.player + delta] = 0; this.boxes[this.player] = id; this.pushes--;
      }
      this.player -= delta;
      return true;
    }
    seek(step) {
      const target = Math.max(0, Math.min(this.length, step));
      if (target < this.step - target) this.reset();
      while (this.step < target) this.forward();
      while (this.step > target) this.back();
    }
    solved() {
      const { goals, inside } = this.level;
      if (this.level.holes) return !this.boxes.some((id) => id > 0);  // every box vanished
      for (let cell = 0; cell < goals.length; cell++) {
        if (inside[cell] && this.boxes[cell] && !goals[cell]) return false;
      }
      return true;
    }
    rows() {  // canonical XSB rows of the current position, as the Python side writes them
      const { w, h, walls } = this.level;
      const goals = openHoles(this.level, this.boxes);
      const out = [];
      for (let r = 0; r < h; r++) {
        let row = "";
        for (let c = 0; c < w; c++) {
          const cell = r * w + c;
          let ch = walls[cell] ? "#" : " ";
          if (this.boxes[cell]) ch = goals[cell] ? "*" : "$";
          else if (cell === this.player) ch = goals[cell] ? "+" : "@";
          else if (goals[cell]) ch = ".";
          row += ch;
        }
        out.push(row.replace(/\s+$/, ""));
      }
      return out;
    }
  }

  /* The goals of a position: a given-holes level's filled holes (their box vanished) are floor. */
  function openHoles(level, boxes) {
    if (!level.holes) return level.goals;
    const open = level.goals.slice();
    const present = new Set(boxes.filter((id) => id > 0));
    level.holes.forEach((hole, number) => { if (!present.has(number + 1)) open[hole] = 0; });
    return open;
  }

  /* The cell size that fits `count` boards side by side in `width` pixels (fewer per row when
     the cells would get smaller than 18 pixels), at most 40 and 460 pixels of board height. */
  function boardCellSize(level, width, count) {
    const fit = (perRow) => Math.floor((width - 16 * (perRow - 1)) / (perRow * level.w));
    let perRow = count;
    while (perRow > 1 && fit(perRow) < 18) perRow--;
    return Math.max(6, Math.min(40, fit(perRow), Math.floor(460 / level.h)));
  }

  function drawBoard(canvas, level, boxes, player, size) {
    canvas.width = level.w * size;
    canvas.height = level.h * size;
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const pad = Math.max(1, Math.round(size * 0.12));
    for (let cell = 0; cell < level.walls.length; cell++) {
      const x = (cell % level.w) * size, y = Math.floor(cell / level.w) * size;
      if (level.walls[cell]) {
        ctx.fillStyle = COLOURS.wall; ctx.fillRect(x, y, size, size); continue;
      }
      if (!level.inside[cell]) continue;
      ctx.fillStyle = COLOURS.floor; ctx.fillRect(x, y, size, size);
      const cx = x + size / 2, cy = y + size / 2;
      if (level.holes) {
        drawPairedCell(ctx, level, boxes, cell, x, y, size, pad);
      } else if (level.goals[cell] && !boxes[cell]) {  // a goal: a red diamond
        ctx.fillStyle = COLOURS.goal;
        const g = size * 0.22;
        ctx.beginPath(); ctx.moveTo(cx, cy - g); ctx.lineTo(cx + g, cy); ctx.lineTo(cx, cy + g);
        ctx.lineTo(cx - g, cy); ctx.closePath(); ctx.fill();
      }
      if (boxes[cell] && !level.holes) {  // a box: a square; on a goal, green with a white cross
        const onGoal = level.goals[cell];
        ctx.fillStyle = onGoal ? COLOURS.boxOnGoal : COLOURS.box;
        ctx.strokeStyle = COLOURS.boxEdge;
        ctx.lineWidth = Math.max(1, size / 16);
        ctx.fillRect(x + pad, y + pad, size - 2 * pad, size - 2 * pad);
        ctx.strokeRect(x + pad, y + pad, size - 2 * pad, size - 2 * pad);
        ctx.strokeStyle = onGoal ? COLOURS.mark : COLOURS.boxEdge;
        ctx.beginPath();
        if (onGoal) {
          ctx.moveTo(x + 2 * pad, y + 2 * pad); ctx.lineTo(x + size - 2 * pad, y + size - 2 * pad);
          ctx.moveTo(x + size - 2 * pad, y + 2 * pad); ctx.lineTo(x + 2 * pad, y + size - 2 * pad);
        } else {
          ctx.moveTo(x + pad, cy); ctx.lineTo(x + size - pad, cy);
        }
        ctx.stroke();
      }
      if (cell === player) {  // the player: a blue disc
        ctx.fillStyle = COLOURS.player;
        ctx.beginPath(); ctx.arc(cx, cy, size * 0.34, 0, 2 * Math.PI); ctx.fill();
      }
    }
  }

  /* Given holes: a hole is a ring in its box's colour with its number (a grey disc once
     filled); a box a square in its colour with its number. */
  function drawPairedCell(ctx, level, boxes, cell, x, y, size, pad) {
    const cx = x + size / 2, cy = y + size / 2;
    const number = level.holes.indexOf(cell);
    const label = (text, colour) => {
      ctx.fillStyle = colour;
      ctx.font = `bold ${Math.round(size * 0.42)}px sans-serif`;
      ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillText(text, cx, cy + size * 0.02);
    };
    if (number >= 0 && !boxes[cell]) {
      const filled = !boxes.some((id) => id === number + 1);
      const colour = filled ? FILLED_HOLE : PAIR_COLOURS[number % PAIR_COLOURS.length];
      ctx.beginPath(); ctx.arc(cx, cy, size * 0.3, 0, 2 * Math.PI);
      if (filled) { ctx.fillStyle = colour; ctx.fill(); } else {
        ctx.strokeStyle = colour; ctx.lineWidth = Math.max(1, size / 12); ctx.stroke();
        label(String(number + 1), colour);
      }
    }
    if (boxes[cell]) {
      const id = boxes[cell];
      ctx.fillStyle = PAIR_COLOURS[(id - 1) % PAIR_COLOURS.length];
      ctx.strokeStyle = COLOURS.boxEdge;
      ctx.lineWidth = Math.max(1, size / 16);
      ctx.fillRect(x + pad, y + pad, size - 2 * pad, size - 2 * pad);
      ctx.strokeRect(x + pad, y + pad, size - 2 * pad, size - 2 * pad);
      label(String(id), COLOURS.mark);
    }
  }

  // ---- the player: one set of controls, one board per track ------------------------------------
  /* tracks: [{label, lurd, note}]; every board shows step min(k, its length). */
  function makePlayer(container, rows, tracks, pairs) {
    container.replaceChildren();
    const level = parseLevel(rows, pairs);
    const controls = el("div", { class: "controls" });
    const buttons = {};
    for (const [name, text, title] of [
      ["start", "«", "back to the start"], ["back", "‹", "one step back (←)"],
      ["play", "▶", "play / pause (space)"], ["forward", "›", "one step forward (→)"],
      ["end", "»", "to the end"],
    ]) {
      buttons[name] = el("button", { type: "button", title, "data-action": name }, text);
      controls.append(buttons[name]);
    }
    const slider = el("input", { type: "range", min: "0", max: "0", value: "0", "aria-label": "step" });
    const counter = el("span", { class: "counter" });
    const speed = el("select", { "aria-label": "speed", title: "steps per second" });
    for (const value of SPEEDS) {
      const option = el("option", { value: String(value) }, `${value} steps/s`);
      if (value === 10) option.selected = true;
      speed.append(option);
    }
    controls.append(slider, counter, speed);
    const boards = el("div", { class: "boards" });
    container.append(controls, boards);
    const size = boardCellSize(level, container.clientWidth || 600, Math.max(1, tracks.length));
    const views = [];
    const player = { step: 0, timer: null, level, views };

    function setTrack(position, track) {
      const replay = new Track(level, track.lurd || "");
      const figure = views[position] ? views[position].figure : el("figure");
      const canvas = el("canvas", { "data-track": String(position) });
      const caption = el("figcaption");
      figure.replaceChildren(canvas, caption);
      if (!views[position]) boards.append(figure);
      views[position] = { replay, canvas, caption, figure, track };
      slider.max = String(Math.max(0, ...views.map((view) => view.replay.length)));
      show(player.step);
    }

    function show(step) {
      const last = Number(slider.max);
      player.step = Math.max(0, Math.min(last, step));
      slider.value = String(player.step);
      counter.textContent = `step ${player.step} / ${last}`;
      for (const view of views) {
        const { replay, canvas, caption, track } = view;
        replay.seek(player.step);
        drawBoard(canvas, level, replay.boxes, replay.player, size);
        caption.style.maxWidth = `${Math.max(canvas.width, 160)}px`;
        canvas.dataset.step = String(replay.step);
        canvas.dataset.position = replay.rows().join("|");
        caption.replaceChildren();
        if (track.label) caption.append(el("b", {}, track.label), " ");
        if (track.control) caption.append(track.control, " ");
        const counts = replay.length
          ? `${replay.step}/${replay.length} moves, ${replay.pushes} pushes`
          : "no moves";
        const state = replay.solved() ? " · solved" : "";
        caption.append(`${counts}${state}`);
        if (track.note) caption.append(el("br"), track.note);
        if (replay.illegal) caption.append(el("br"), `stops at its first illegal step (${replay.length + 1})`);
      }
    }

    function pause() {
      if (player.timer !== null) clearInterval(player.timer);
      player.timer = null;
      buttons.play.textContent = "▶";
    }
    function play() {
      if (player.step >= Number(slider.max)) show(0);
      pause();
      buttons.play.textContent = "||";
      player.timer = setInterval(() => {
        if (player.step >= Number(slider.max)) { pause(); return; }
        show(player.step + 1);
      }, 1000 / Number(speed.value));
    }
    buttons.start.addEventListener("click", () => { pause(); show(0); });
    buttons.back.addEventListener("click", () => { pause(); show(player.step - 1); });
    buttons.forward.addEventListener("click", () => { pause(); show(player.step + 1); });
    buttons.end.addEventListener("click", () => { pause(); show(Number(slider.max)); });
    buttons.play.addEventListener("click", () => (player.timer === null ? play() : pause()));
    slider.addEventListener("input", () => { pause(); show(Number(slider.value)); });
    speed.addEventListener("change", () => { if (player.timer !== null) play(); });
    player.setTrack = setTrack;
    player.show = show;
    player.pause = pause;
    player.toggle = () => (player.timer === null ? play() : pause());
    tracks.forEach((track, position) => setTrack(position, track));
    activePlayer = player;
    return player;
  }

  let activePlayer = null;
  document.addEventListener("keydown", (event) => {
    if (!activePlayer || ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (event.key === "ArrowRight") { activePlayer.pause(); activePlayer.show(activePlayer.step + 1); }
    else if (event.key === "ArrowLeft") { activePlayer.pause(); activePlayer.show(activePlayer.step - 1); }
    else if (event.key === " ") { activePlayer.toggle(); }
    else return;
    event.preventDefault();
  });

  // ---- charts ----------------------------------------------------------------------------------
  function niceTicks(low, high, count) {
    if (!(high > low)) { high = low + 1; }
    const raw = (high - low) / count;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((f) => f * power).find((s) => s >= raw) || raw;
    const ticks = [];
    for (let t = Math.ceil(low / step) * step; t <= high + step * 1e-9; t += step) ticks.push(+t.toFixed(10));
    return ticks;
  }

  /* series: [{x, y, colour, width, dash, step}], bands: [{x, lo, hi, colour}] */
  function lineChart(canvas, options) {
    const dpr = window.devicePixelRatio || 1;
    const cssWidth = canvas.clientWidth || 600, cssHeight = canvas.clientHeight || 280;
    canvas.width = cssWidth * dpr; canvas.height = cssHeight * dpr;
    const ctx = canvas.getContext("2d");
    ctx.scale(dpr, dpr);
    const m = { left: 56, right: 14, top: 12, bottom: 40 };
    const plotW = cssWidth - m.left - m.right, plotH = cssHeight - m.top - m.bottom;
    const xs = [], ys = [];
    for (const s of options.series) { xs.push(...s.x); ys.push(...s.y.filter((v) => v !== null)); }
    for (const b of options.bands || []) { ys.push(...b.hi.filter((v) => v !== null)); }
    if (options.xmax !== undefined) xs.push(options.xmax);
    if (!xs.length) { ctx.fillStyle = "#5f6b7a"; ctx.fillText("no data yet", m.left, m.top + 20); return; }
    const log = !!options.xlog;
    const tx = (v) => (log ? Math.log10(Math.max(v, 1e-12)) : v);
    let x0 = Math.min(...xs.map(tx)), x1 = Math.max(...xs.map(tx));
    if (log) { x0 = Math.floor(x0); x1 = Math.ceil(x1); }
    if (x1 <= x0) { if (!log) x0 -= 0.5; x1 = x0 + 1; }  // one x: centred, not on the axis
    let y0 = options.ymin !== undefined ? options.ymin : Math.min(0, ...ys);
    let y1 = options.ymax !== undefined ? options.ymax : Math.max(...ys, y0 + 1);
    if (y1 <= y0) y1 = y0 + 1;
    const px = (v) => m.left + ((tx(v) - x0) / (x1 - x0)) * plotW;
    const py = (v) => m.top + plotH - ((v - y0) / (y1 - y0)) * plotH;
    ctx.font = "11px system-ui, sans-serif";
    ctx.strokeStyle = "#e3e7ed"; ctx.fillStyle = "#5f6b7a"; ctx.lineWidth = 1;
    const yTicks = niceTicks(y0, y1, 5);
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (const t of yTicks) {
      const y = py(t);
      ctx.beginPath(); ctx.moveTo(m.left, y); ctx.lineTo(m.left + plotW, y); ctx.stroke();
      ctx.fillText(fmt(t, 3), m.left - 6, y);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    let xTicks = log
      ? Array.from({ length: x1 - x0 + 1 }, (_, i) => Math.pow(10, x0 + i))
      : niceTicks(x0, x1, 6);
    if (options.xinteger) xTicks = xTicks.filter((t) => Number.isInteger(t));  // no generation 0.5
    for (const t of xTicks) {
      const x = px(t);
      ctx.beginPath(); ctx.moveTo(x, m.top); ctx.lineTo(x, m.top + plotH); ctx.stroke();
      ctx.fillText(log ? power(t) : fmt(t, 4), x, m.top + plotH + 5);
    }
    ctx.strokeStyle = "#9aa3af";
    ctx.beginPath(); ctx.moveTo(m.left, m.top); ctx.lineTo(m.left, m.top + plotH);
    ctx.lineTo(m.left + plotW, m.top + plotH); ctx.stroke();
    ctx.fillStyle = "#1d2430";
    ctx.fillText(options.xlabel || "", m.left + plotW / 2, m.top + plotH + 22);
    ctx.save(); ctx.translate(12, m.top + plotH / 2); ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle"; ctx.fillText(options.ylabel || "", 0, 0); ctx.restore();
    ctx.save();
    ctx.beginPath(); ctx.rect(m.left, m.top - 2, plotW + 2, plotH + 4); ctx.clip();
    for (const band of options.bands || []) {
      ctx.fillStyle = band.colour; ctx.globalAlpha = 0.18;
      ctx.beginPath();
      band.x.forEach((x, i) => (i ? ctx.lineTo(px(x), py(band.hi[i])) : ctx.moveTo(px(x), py(band.hi[i]))));
      for (let i = band.x.length - 1; i >= 0; i--) ctx.lineTo(px(band.x[i]), py(band.lo[i]));
      ctx.closePath(); ctx.fill(); ctx.globalAlpha = 1;
    }
    for (const s of options.series) {
      if (!s.x.length) continue;
      ctx.strokeStyle = s.colour; ctx.lineWidth = s.width || 1.5; ctx.setLineDash(s.dash || []);
      ctx.beginPath();
      s.x.forEach((x, i) => {
        const X = px(x), Y = py(s.y[i]);
        if (i === 0) ctx.moveTo(X, Y);
        else if (s.step) { ctx.lineTo(X, py(s.y[i - 1])); ctx.lineTo(X, Y); }
        else ctx.lineTo(X, Y);
      });
      ctx.stroke(); ctx.setLineDash([]);
      if (s.x.length === 1 && s.y[0] !== null) {  // one generation: a dot, as a line has no length
        ctx.fillStyle = s.colour;
        ctx.beginPath(); ctx.arc(px(s.x[0]), py(s.y[0]), (s.width || 1.5) + 2.5, 0, 2 * Math.PI); ctx.fill();
      }
    }
    for (const v of options.vlines || []) {
      ctx.strokeStyle = "#7f7f7f"; ctx.setLineDash([2, 3]);
      ctx.beginPath(); ctx.moveTo(px(v), m.top); ctx.lineTo(px(v), m.top + plotH); ctx.stroke();
      ctx.setLineDash([]);
    }
    ctx.restore();
    canvas.dataset.drawn = String(options.series.filter((s) => s.x.length).length);
  }

  function legend(container, items) {
    container.replaceChildren();
    for (const item of items) {
      const span = el("span", { class: item.kind || "" }, item.label);
      span.style.setProperty("--swatch", item.colour);
      container.append(span);
    }
  }

  // ---- sortable tables -------------------------------------------------------------------------
  function sortable(table) {
    const headers = Array.from(table.querySelectorAll("thead th"));
    headers.forEach((th, column) => th.addEventListener("click", () => {
      const order = th.dataset.order === "asc" ? "desc" : "asc";
      headers.forEach((other) => delete other.dataset.order);
      th.dataset.order = order;
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const key = (row) => {
        const cell = row.cells[column];
        const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
        const number = Number(raw.replace(/,/g, ""));
        return raw !== "" && raw !== "–" && !Number.isNaN(number) ? [0, number] : [1, raw];
      };
      rows.sort((a, b) => {
        const [ka, va] = key(a), [kb, vb] = key(b);
        if (ka !== kb) return ka - kb;
        const result = va < vb ? -1 : va > vb ? 1 : 0;
        return order === "asc" ? result : -result;
      });
      body.append(...rows);
    }));
  }

  // ---- a run -----------------------------------------------------------------------------------
  function runPage() {
    const levels = DATA.levels;
    const select = document.getElementById("level-select");
    levels.forEach((level, position) => {
      select.append(el("option", { value: String(position) }, levelName(level)));
    });
    const rows = Array.from(document.querySelectorAll("#results-table tbody tr"));
    function choose(position) {
      const level = levels[position];
      select.value = String(position);
      rows.forEach((row) => row.classList.toggle("chosen", Number(row.dataset.position) === position));
      document.getElementById("level-title").textContent = levelName(level).replace("level", "Level");
      const curve = level.curve;
      const canvas = document.getElementById("curve");
      const note = document.getElementById("curve-note");
      if (curve) {
        const lo = curve.mean.map((v, i) => Math.max(0, v - curve.std[i]));
        const hi = curve.mean.map((v, i) => v + curve.std[i]);
        lineChart(canvas, {
          xlabel: "generation", ylabel: "distance to solved (0 = solved)", ymin: 0, xinteger: true,
          bands: [{ x: curve.g, lo, hi, colour: PALETTE[0] }],
          series: [
            { x: curve.g, y: curve.mean, colour: PALETTE[0], width: 1.2, dash: [5, 3] },
            // best so far under the best of each generation: both join the generations' points
            // (as the PNG plot draws them), so the thin line shows where the two part
            { x: curve.g, y: curve.bsf, colour: PALETTE[1], width: 3.2 },
            { x: curve.g, y: curve.best, colour: PALETTE[3], width: 1.2 },
          ],
        });
        legend(document.getElementById("curve-legend"), [
          { label: "best so far", colour: PALETTE[1] },
          { label: "best of the generation", colour: PALETTE[3] },
          { label: "mean", colour: PALETTE[0], kind: "dashed" },
          { label: "mean ± std", colour: PALETTE[0], kind: "band" },
        ]);
        note.textContent = curve.bucket > 1
          ? `${curve.g[curve.g.length - 1]} generations, shown in buckets of ${curve.bucket} (best: the bucket's lowest; mean and std: its average).`
          : `Generations ${curve.g[0]} to ${curve.g[curve.g.length - 1]}, ${fmt(curve.e[curve.e.length - 1])} evaluations.`;
      } else {
        lineChart(canvas, { series: [] });
        legend(document.getElementById("curve-legend"), []);
        note.textContent = "No metrics for this level yet.";
      }
      const container = document.getElementById("player");
      const playerNote = document.getElementById("player-note");
      if (!level.rows) {
        container.replaceChildren();
        playerNote.textContent = "The level file is not readable from here, so there is no board.";
        return;
      }
      const track = level.track;
      let label = "start position", text = "";
      if (track) {
        label = track.label;
        if (!track.solves && track.distance !== null && track.distance !== undefined) {
          text = `the GA's best individual, stopped at distance ${track.distance}`;
        }
      } else if (level.result) {
        text = level.result.solved ? "" : "This run folder keeps no best individual for unsolved levels.";
      } else {
        text = "Not finished yet.";
      }
      playerNote.textContent = "";
      makePlayer(container, level.rows, [{ label, lurd: track ? track.lurd : "", note: text }],
        level.pairs);
    }
    select.addEventListener("change", () => choose(Number(select.value)));
    rows.forEach((row) => row.addEventListener("click", () => choose(Number(row.dataset.position))));
    if (levels.length) {
      const wanted = Number(new URLSearchParams(location.hash.slice(1)).get("level"));
      const position = levels.findIndex((level) => level.index === wanted);
      choose(Math.max(0, position));
    }
  }

  // ---- a comparison ----------------------------------------------------------------------------
  function comparePage() {
    const [SOLVER, LEVEL, SEED, SOLVED, SECONDS, USED, MOVES, PUSHES, STATUS, SOLUTION] =
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    const solvers = DATA.solvers, jobs = DATA.jobs;
    const bySolver = solvers.map((_, s) => jobs.filter((job) => job[SOLVER] === s));

    function ecdf(canvasId, legendId, measure, unit, limit, xlabel) {
      const canvas = document.getElementById(canvasId);
      if (!canvas) return;
      const series = [], items = [];
      let smallest = Infinity;
      for (const job of jobs) if (job[SOLVED] && job[measure] > 0) smallest = Math.min(smallest, job[measure]);
      if (!Number.isFinite(smallest)) smallest = (limit || 1) / 1000;
      solvers.forEach((name, s) => {
        if (unit && DATA.units[s] !== unit) return;
        const runs = bySolver[s];
        if (!runs.length) return;
        const costs = runs.filter((j) => j[SOLVED]).map((j) => Math.max(j[measure], smallest)).sort((a, b) => a - b);
        const x = [costs.length ? costs[0] : smallest], y = [0];
        costs.forEach((c, i) => { x.push(c); y.push((i + 1) / runs.length); });
        const end = Math.max(limit || 0, x[x.length - 1]);
        x.push(end); y.push(y[y.length - 1]);
        series.push({ x, y, colour: colour(s), width: 1.8, step: true });
        items.push({ label: `${name} (${Math.round(100 * y[y.length - 1])}%)`, colour: colour(s) });
      });
      lineChart(canvas, { series, xlog: true, ymin: 0, ymax: 1, xlabel, ylabel: "fraction of runs solved", vlines: limit ? [limit] : [] });
      legend(document.getElementById(legendId), items);
    }
    const budget = DATA.budget;
    const clock = budget.clock === "cpu" ? "CPU time" : "wall-clock time";
    ecdf("ecdf-time", "ecdf-time-legend", SECONDS, null, budget.seconds, `${clock} (s, log scale)`);
    ecdf("ecdf-evaluations", "ecdf-evaluations-legend", USED, "evaluations", budget.evaluations, "fitness evaluations (log scale)");
    ecdf("ecdf-nodes", "ecdf-nodes-legend", USED, "nodes", budget.nodes, "expanded search nodes (log scale)");
    ecdf("ecdf-iterations", "ecdf-iterations-legend", USED, "iterations", budget.nodes, "mcts iterations (log scale)");

    const levels = DATA.levels;
    const levelPosition = new Map(levels.map((level, position) => [level.index, position]));
    const select = document.getElementById("level-select");
    levels.forEach((level, position) => select.append(el("option", { value: String(position) }, levelName(level))));

    // who solved what: one row per solver, one column per level
    const strip = document.getElementById("strip");
    const labelWidth = 110;
    const stripCell = Math.max(5, Math.min(22, Math.floor((Math.min(1300, document.body.clientWidth - 80) - labelWidth) / Math.max(1, levels.length))));
    const rowHeight = 20;
    function drawStrip(chosen) {
      strip.width = labelWidth + stripCell * levels.length + 2;
      strip.height = rowHeight * solvers.length + 4;
      const ctx = strip.getContext("2d");
      ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "middle";
      solvers.forEach((name, s) => {
        ctx.fillStyle = "#1d2430"; ctx.textAlign = "right";
        ctx.fillText(name.length > 16 ? name.slice(0, 15) + "…" : name, labelWidth - 8, 2 + s * rowHeight + rowHeight / 2);
        levels.forEach((level, position) => {
          const runs = bySolver[s].filter((job) => job[LEVEL] === level.index);
          const x = labelWidth + position * stripCell, y = 2 + s * rowHeight;
          if (!runs.length) { ctx.fillStyle = "#eeeeee"; }
          else {
            const share = runs.filter((job) => job[SOLVED]).length / runs.length;
            ctx.fillStyle = share === 0 ? "#f3d4d8" : `rgba(46, 139, 87, ${0.25 + 0.75 * share})`;
          }
          ctx.fillRect(x + 0.5, y + 1, stripCell - 1, rowHeight - 2);
        });
      });
      if (chosen !== undefined) {
        ctx.strokeStyle = "#1d2430"; ctx.lineWidth = 2;
        ctx.strokeRect(labelWidth + chosen * stripCell, 1, stripCell, rowHeight * solvers.length + 2);
      }
    }
    strip.addEventListener("click", (event) => {
      const rect = strip.getBoundingClientRect();
      const position = Math.floor((event.clientX - rect.left - labelWidth) / stripCell);
      if (position >= 0 && position < levels.length) choose(position);
    });
    strip.addEventListener("mousemove", (event) => {
      const rect = strip.getBoundingClientRect();
      const position = Math.floor((event.clientX - rect.left - labelWidth) / stripCell);
      const s = Math.floor((event.clientY - rect.top - 2) / rowHeight);
      if (position < 0 || position >= levels.length || s < 0 || s >= solvers.length) { strip.title = ""; return; }
      const runs = bySolver[s].filter((job) => job[LEVEL] === levels[position].index);
      const solved = runs.filter((job) => job[SOLVED]).length;
      strip.title = `level ${levels[position].index} (${levels[position].name}), ${solvers[s]}: ${solved}/${runs.length} solved`;
    });

    function jobLabel(job) {
      const seed = job[SEED] === null ? "" : `seed ${job[SEED]}: `;
      return job[SOLVED] ? `${seed}${job[MOVES]} moves` : `${seed}${DATA.statuses[job[STATUS]]}`;
    }
    function choose(position) {
      const level = levels[position];
      select.value = String(position);
      drawStrip(position);
      document.getElementById("level-title").textContent = levelName(level).replace("level", "Level");
      const table = document.getElementById("jobs-table").tBodies[0];
      table.replaceChildren();
      const levelJobs = jobs.filter((job) => job[LEVEL] === level.index);
      for (const job of levelJobs) {
        const tr = el("tr");
        tr.append(
          el("td", { class: "text" }, solvers[job[SOLVER]]),
          el("td", {}, job[SEED] === null ? "–" : job[SEED]),
          el("td", { class: "text" }, DATA.statuses[job[STATUS]]),
          el("td", { class: job[SOLVED] ? "yes" : "no" }, job[SOLVED] ? "yes" : "no"),
          el("td", {}, fmt(job[SECONDS], 3)),
          el("td", {}, fmt(job[USED])),
          el("td", {}, fmt(job[MOVES])),
          el("td", {}, fmt(job[PUSHES])),
        );
        table.append(tr);
      }
      const container = document.getElementById("player");
      if (!level.rows) {
        container.replaceChildren(el("p", { class: "note" }, "The level file is not readable from here, so there is no board."));
        return;
      }
      const tracks = [];
      const player = { current: null };
      solvers.forEach((name, s) => {
        const runs = levelJobs.filter((job) => job[SOLVER] === s);
        if (!runs.length) return;
        const first = Math.max(0, runs.findIndex((job) => job[SOLVED]));
        const trackOf = (job, control) => ({
          label: name, lurd: job[SOLUTION] || "", control,
          note: job[SOLVED] ? null : `not solved (${DATA.statuses[job[STATUS]]}): the start position`,
        });
        let control = null;
        if (runs.length > 1) {
          control = el("select", { "aria-label": `${name} run` });
          runs.forEach((job, i) => control.append(el("option", { value: String(i) }, jobLabel(job))));
          control.value = String(first);
          const position = tracks.length;
          control.addEventListener("change", () => player.current.setTrack(position, trackOf(runs[Number(control.value)], control)));
        }
        tracks.push(trackOf(runs[first], control));
      });
      player.current = makePlayer(container, level.rows, tracks, level.pairs);
    }
    select.addEventListener("change", () => choose(Number(select.value)));
    if (levels.length) {
      const wanted = Number(new URLSearchParams(location.hash.slice(1)).get("level"));
      choose(levelPosition.has(wanted) ? levelPosition.get(wanted) : 0);
    } else {
      drawStrip();
    }
  }

  // ---- several folders side by side -----------------------------------------------------------
  function foldersPage() {
    const levels = DATA.levels;
    const rows = Array.from(document.querySelectorAll("#joined-table tbody tr"));
    const canvas = document.getElementById("curve");
    if (!canvas) return;  // no run folder: no curves
    const select = document.getElementById("level-select");
    levels.forEach((level, position) => select.append(el("option", { value: String(position) }, levelName(level))));
    const runs = DATA.folders.map((folder, source) => [folder, source]).filter(([folder]) => folder.kind === "run");
    function choose(position) {
      const level = levels[position];
      select.value = String(position);
      rows.forEach((row) => row.classList.toggle("chosen", Number(row.dataset.position) === position));
      document.getElementById("level-title").textContent = levelName(level).replace("level", "Level");
      const series = [], items = [];
      for (const curve of level.curves) {
        const c = colour(curve.source);
        series.push({ x: curve.e, y: curve.mean, colour: c, width: 1, dash: [5, 3] });
        series.push({ x: curve.e, y: curve.bsf, colour: c, width: 2.4 });
        items.push({ label: DATA.folders[curve.source].label, colour: c });
      }
      if (series.length) items.push({ label: "dashed: the generation's mean", colour: "#7f7f7f", kind: "dashed" });
      lineChart(canvas, {
        xlabel: "fitness evaluations", ylabel: "distance to solved (0 = solved)", ymin: 0, series,
      });
      legend(document.getElementById("curve-legend"), items);
      const drawn = new Set(level.curves.map((curve) => curve.source));
      const missing = runs.filter(([, source]) => !drawn.has(source)).map(([folder]) => folder.label);
      document.getElementById("curve-note").textContent =
        "Solid: best so far; dashed: the mean distance of each generation." +
        (missing.length ? ` Not run on this level: ${missing.join(", ")}.` : "");
    }
    select.addEventListener("change", () => choose(Number(select.value)));
    rows.forEach((row) => row.addEventListener("click", () => choose(Number(row.dataset.position))));
    if (levels.length) {
      const first = levels.findIndex((level) => level.curves.length);
      choose(Math.max(0, first));
    }
  }

  // ---- a level run ----------------------------------------------------------------------------
  function levelsPage() {
    const levels = DATA.levels;
    const select = document.getElementById("level-select");
    levels.forEach((level, position) => select.append(el("option", { value: String(position) }, level.name)));
    const picks = Array.from(document.querySelectorAll("#levels-table tbody tr, #archive-table td.pick"));
    const curve = DATA.curve;
    if (curve) {
      lineChart(document.getElementById("curve"), {
        xlabel: "generation", ylabel: DATA.objective, xinteger: true,
        series: [
          { x: curve.g, y: curve.best, colour: PALETTE[1], width: 2.4 },
          { x: curve.g, y: curve.median, colour: PALETTE[0], width: 1.2, dash: [5, 3] },
        ],
      });
      legend(document.getElementById("curve-legend"), [
        { label: "best of the population", colour: PALETTE[1] },
        { label: "median", colour: PALETTE[0], kind: "dashed" },
      ]);
    }
    function choose(position) {
      const level = levels[position];
      select.value = String(position);
      picks.forEach((node) => node.classList.toggle("chosen", Number(node.dataset.position) === position));
      document.getElementById("level-title").textContent = level.name;
      const notes = level.notes;
      const facts = ["Pushes", "Moves", "BoxChanges", "Expanded", "Certifier", "Cell"]
        .filter((key) => notes[key] !== undefined).map((key) => `${key}: ${notes[key]}`);
      document.getElementById("player-note").textContent = facts.join(" · ");
      makePlayer(document.getElementById("player"), level.rows,
        [{ label: "certificate", lurd: level.solution }]);
    }
    select.addEventListener("change", () => choose(Number(select.value)));
    picks.forEach((node) => node.addEventListener("click", () => choose(Number(node.dataset.position))));
    if (levels.length) choose(0);
  }

  /* The page's own replay, for tests: the rows after each legal step of `lurd` on `rows`. */
  window.evosokoReplay = (rows, lurd, pairs) => {
    const track = new Track(parseLevel(rows, pairs), lurd);
    const positions = [track.rows().join("|")];
    while (track.forward()) positions.push(track.rows().join("|"));
    for (let step = track.length - 1; step >= 0; step--) {  // and back again, by undoing
      track.back();
      if (track.rows().join("|") !== positions[step]) return null;
    }
    return positions;
  };

  // ---- start -----------------------------------------------------------------------------------
  document.querySelectorAll("table.sortable").forEach(sortable);
  if (DATA.kind === "run") runPage();
  else if (DATA.kind === "compare") comparePage();
  else if (DATA.kind === "levels") levelsPage();
  else if (DATA.kind === "folders") foldersPage();
  const ready = performance.now();
  document.body.dataset.readyMs = ready.toFixed(1);
  document.body.dataset.ready = "1";
})();
