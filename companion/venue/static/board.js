// The venue's boards: fetch the view, render it with text nodes only, refetch at each notice
// pushed over the WebSocket; the clock counts down here from start + duration.
"use strict";
(function () {
  const body = document.body;
  const organiser = body.dataset.page === "organiser";
  const token = new URLSearchParams(location.search).get("token") || "";
  const L = (k) => body.dataset["l" + k.charAt(0).toUpperCase() + k.slice(1)] || k;
  let view = null;
  let offset = 0; // the hub's clock minus this browser's
  let pending = null;

  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }
  function fill(node, children) { node.replaceChildren(...children); }
  function num(v) { return Number.isInteger(v) ? String(v) : String(v).replace(".", document.documentElement.lang === "fr" ? "," : "."); }

  async function api(path, data) {
    const opts = { headers: { "X-Token": token } };
    if (data) { opts.method = "POST"; opts.body = JSON.stringify(data); opts.headers["Content-Type"] = "application/json"; }
    const r = await fetch(path, opts);
    const answer = await r.json();
    if (!r.ok) throw new Error(answer.error || r.statusText);
    return answer;
  }

  // Two fetches may be on their way at once (one asked during the other): the answer to the
  // older one, arriving last, must not draw the room as it was (a judge call marked done came
  // back on the organiser's board, and stayed, when nothing changed after).
  let asked = 0, drawn = 0;
  async function refresh() {
    pending = null;
    const mine = ++asked;
    try {
      const answer = await api(organiser ? "/api/organiser" : "/api/public");
      if (mine < drawn) return;
      drawn = mine;
      view = answer;
      offset = view.now * 1000 - Date.now();
      render();
    } catch (e) { say(e.message); }
  }
  // At most two fetches a second, however many tables change: the view is the whole room.
  let last = 0;
  function soon() {
    if (pending) return;
    pending = setTimeout(() => { last = Date.now(); refresh(); }, Math.max(100, 500 - (Date.now() - last)));
  }
  function say(text) { const s = document.getElementById("status"); if (s) s.textContent = text; }

  function render() {
    const line = document.getElementById("round-line");
    line.textContent = view.round ? (view.final ? L("final") : L("round") + " " + view.round) : L("noround");
    document.getElementById("title").textContent = view.event;
    fill(document.getElementById("seating"), (view.seating || []).map((players, i) => {
      const s = el("section", null, { "aria-label": L("table") + " " + (i + 1) });
      s.append(el("h3", L("table") + " " + (i + 1)));
      const ol = el("ol");
      players.forEach((p) => ol.append(el("li", p)));
      s.append(ol);
      return s;
    }));
    fill(document.querySelector("#standings tbody"), (view.standings || []).map((s) => {
      const tr = el("tr");
      tr.append(el("td", s.rank), el("th", s.name, { scope: "row" }), el("td", s.gw), el("td", num(s.vp)), el("td", num(s.tp)),
                el("td", s.games));
      return tr;
    }));
    if (organiser) renderOrganiser();
    tick();
  }

  function renderOrganiser() {
    fill(document.querySelector("#live tbody"), (view.tables || []).map((t) => {
      const tr = el("tr");
      const st = t.state && t.state.state;
      const turn = st ? [st.active, st.phase].filter(Boolean).join(" · ") : "";
      const pools = st ? st.seats.map((s) => s.name + " " + (s.counters.pool !== undefined ? s.counters.pool : Object.values(s.counters)[0]) + (s.out ? " ✝" : "")).join(", ") : "";
      const res = t.result ? t.result.status_text + (t.result.reason_text ? " (" + t.result.reason_text + ")" : "") : L("pending");
      tr.append(el("th", L("table") + " " + t.table, { scope: "row" }),
                el("td", t.online ? L("online") : L("offline"), t.online ? {} : { class: "offline" }),
                el("td", turn), el("td", pools), el("td", res, t.result && t.result.status === "refused" ? { class: "refused" } : {}));
      return tr;
    }));
    const calls = view.judge_calls || [];
    fill(document.getElementById("judge"), calls.length ? calls.map((c) => {
      const li = el("li");
      li.append(el("strong", L("table") + " " + c.table), document.createTextNode(" " + [c.phase, c.active, c.why].filter(Boolean).join(" · ")));
      if (c.log && c.log.length) { const pre = el("ul"); c.log.slice(-3).forEach((x) => pre.append(el("li", x))); li.append(pre); }
      const b = el("button", L("done"), { type: "button" });
      b.addEventListener("click", () => api("/api/action", { action: "judge_done", id: c.id }).then(soon, (e) => say(e.message)));
      li.append(b);
      return li;
    }) : [el("li", L("nocall"))]);
    fill(document.getElementById("players"), (view.players || []).map((p) => el("li", p.name + (p.vekn ? " (" + p.vekn + ")" : "") + (p.pinned ? " → " + L("table") + " " + p.pinned : ""))));
  }

  function tick() {
    const c = view && view.clock;
    const node = document.getElementById("clock");
    if (!c) { node.textContent = ""; return; }
    if (c.state !== "running") { node.textContent = L("paused"); return; }
    const left = Math.max(0, Math.round(c.start + c.duration - (Date.now() + offset) / 1000));
    const m = Math.floor(left / 60), s = left % 60;
    node.textContent = m + ":" + String(s).padStart(2, "0") + " " + L("left");
  }
  setInterval(() => { if (view) tick(); }, 1000);

  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + (token ? "?token=" + encodeURIComponent(token) : ""));
    ws.onmessage = () => soon();
    ws.onclose = () => setTimeout(connect, 2000);
  }

  if (organiser) {
    document.getElementById("register").addEventListener("submit", (e) => {
      e.preventDefault();
      const f = e.target;
      api("/api/action", { action: "register", name: f.name.value, vekn: f.vekn.value })
        .then((a) => { say(a.message); f.reset(); soon(); }, (err) => say(err.message));
    });
    document.getElementById("clock-form").addEventListener("submit", (e) => {
      e.preventDefault();
      api("/api/action", { action: "clock", minutes: Number(e.target.minutes.value) }).then(soon, (err) => say(err.message));
    });
    document.getElementById("stop-clock").addEventListener("click", () => api("/api/action", { action: "stop_clock" }).then(soon, (err) => say(err.message)));
    // the seating's notes (who sits out a staggered round, a pin that could not be kept whole)
    document.getElementById("seat").addEventListener("click", () => api("/api/action", { action: "seat" })
      .then((a) => { say((a.notes || []).join(" ; ")); soon(); }, (err) => say(err.message)));
    document.getElementById("final").addEventListener("click", () => api("/api/action", { action: "final" }).then(soon, (err) => say(err.message)));
    document.getElementById("print").addEventListener("click", () => window.print());
    document.getElementById("override").addEventListener("submit", (e) => {
      e.preventDefault();
      const f = e.target;
      const table = Number(f.table.value);
      const seated = (view.seating || [])[table - 1] || [];
      const vp = f.vp.value.split(/[\s;]+/).filter(Boolean).map((x) => Number(x.replace(",", ".")));
      api("/api/action", { action: "override", round: view.round, table: table, players: seated, vp: vp, reason: f.reason.value })
        .then((a) => { say(a.message); if (a.ok) f.reset(); soon(); }, (err) => say(err.message));
    });
    for (const id of ["export-standings", "export-archon"]) {
      const a = document.getElementById(id);
      a.href = a.getAttribute("href") + "?token=" + encodeURIComponent(token);
    }
  }
  refresh();
  connect();
})();
