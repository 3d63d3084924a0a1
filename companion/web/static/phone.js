// The phone page: one seat's screen (or a spectator's). Plain JS, no build, no CDN.
// Every change is announced in the ARIA live region so the phone's own screen reader speaks it.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { token: "", role: "", seat: null, name: "", table: null, cards: [], words: {}, logs: [],
                  lang: localStorage.getItem("lang") || ((navigator.language || "fr").startsWith("en") ? "en" : "fr"),
                  speak: localStorage.getItem("speak") === "1", ws: null, retry: 500, revision: -1 };

  // Symbols Atkinson Hyperlegible has no glyph for, drawn as the window draws them
// (companion/ui/glyphs.yaml): VTES prints a circled D before a directed action.
const GLYPHS = { "\u24B9": "(D)" };
function shown(text) {
  return String(text || "").replace(/[\u24B9]/g, (ch) => GLYPHS[ch] || ch);
}

function w(key, values) {
    let text = (state.words[state.lang] || {})[key] || key;
    for (const [k, v] of Object.entries(values || {})) text = text.split("{" + k + "}").join(String(v));
    return text;
  }

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children) node.append(child);
    return node;
  }

  function announce(text, urgent) {
    if (!text) return;
    const region = urgent ? $("alert") : $("live");
    region.append(el("p", { textContent: text }));
    while (region.childNodes.length > 5) region.firstChild.remove();
    if (state.speak && "speechSynthesis" in window) {
      const u = new SpeechSynthesisUtterance(text);
      u.lang = state.lang === "en" ? "en-GB" : "fr-FR";
      window.speechSynthesis.speak(u);
    }
  }

  function label(names, id) { return names && names[id] ? (names[id][state.lang] || names[id].fr || id) : id; }

  // -- rendering --------------------------------------------------------------------------------
  function renderWords() {
    document.documentElement.lang = state.lang;
    document.title = w("title");
    for (const node of document.querySelectorAll("[data-w]")) node.textContent = w(node.dataset.w);
    $("lang").lang = state.lang === "fr" ? "en" : "fr";  // the button names the other language in its own
    $("speech").checked = state.speak;
    $("status").textContent = state.status ? w(state.status) : "";
  }

  function render() {
    renderWords();
    const table = state.table;
    const joined = Boolean(state.role);
    $("join").hidden = joined;
    for (const id of ["turn", "table", "rules", "log"]) $(id).hidden = !joined || !table;
    $("mine").hidden = !(joined && table && state.seat);
    $("cards").hidden = !(joined && state.seat);
    if (!table) return;
    const names = table.names || {};
    const me = state.seat ? table.seats[state.seat - 1] : null;
    $("mine-h").textContent = state.seat ? w("my_seat", { name: state.name }) : "";
    const box = $("counters");
    box.replaceChildren();
    if (me) {
      for (const [cid, value] of Object.entries(me.counters)) {
        if (!(names.counters || {})[cid]) continue;
        const name = label(names.counters, cid);
        const input = el("input", { type: "number", inputMode: "numeric", id: "set-" + cid, value: value });
        input.setAttribute("aria-label", w("set_label", { counter: name }));
        const minus = el("button", { type: "button", className: "big", textContent: "−1" });
        minus.setAttribute("aria-label", w("minus", { counter: name }));
        minus.dataset.counter = cid; minus.dataset.amount = "-1";
        const plus = el("button", { type: "button", className: "big", textContent: "+1" });
        plus.setAttribute("aria-label", w("plus", { counter: name }));
        plus.dataset.counter = cid; plus.dataset.amount = "+1";
        const set = el("button", { type: "button", textContent: w("set") });
        set.dataset.set = cid;
        const nameId = "name-" + cid;
        const row = el("div", { className: "counter" },
          el("span", { className: "name", id: nameId, textContent: name }),
          el("span", { className: "value", textContent: String(value) }),
          el("div", { className: "row" }, minus, plus, input, set));
        row.setAttribute("role", "group");
        row.setAttribute("aria-labelledby", nameId);
        box.append(row);
      }
    }
    const active = table.active || "";
    $("turn-text").textContent = w("turn_of", { turn: table.turn, name: active, phase: label(names.phases, table.phase) })
      + (state.seat && table.active_seat === state.seat ? " " + w("your_turn") : "");
    const mine = Boolean(state.seat);
    $("next").disabled = !(mine && table.active_seat === state.seat);
    // Undo and redo take back this seat's own changes only: off when it has none.
    const own = (table.undo || {})[String(state.seat)] || [0, 0];
    $("undo").disabled = !(mine && own[0] > 0);
    $("redo").disabled = !(mine && own[1] > 0);
    const seats = $("seats");
    seats.replaceChildren();
    for (const seat of table.seats) {
      const parts = Object.entries(seat.counters).filter(([cid]) => (names.counters || {})[cid])
        .map(([cid, v]) => label(names.counters, cid) + " " + v);
      const text = w("seat_line", { n: seat.seat, name: seat.name, counters: parts.join(", ") })
        + (seat.out ? " (" + w("out") + ")" : "");
      seats.append(el("li", { textContent: text, className: seat.seat === table.active_seat ? "active" : "" }));
    }
    renderCards();
  }

  function renderCards() {
    const list = $("card-list");
    list.replaceChildren();
    if (!state.cards.length) list.append(el("li", { textContent: w("no_cards") }));
    for (const card of state.cards) {
      const reveal = el("button", { type: "button", textContent: w("reveal", { name: card.name || card.ref }) });
      reveal.dataset.reveal = card.id;
      // In the page's language, as the console writes it for a screen reader, when the table sent it.
      const seen = card.shown && (card.shown[state.lang] || card.shown.fr);
      const colon = state.lang === "fr" ? " : " : ": ";
      const meta = seen ? seen.rows.map((row) => row[0] + colon + row[1]).join(" · ")
        : [card.types.join(", "), card.cost ? String(card.cost) : ""].filter(Boolean).join(" · ");
      list.append(el("li", {},
        el("h3", { className: "card-name", textContent: (seen && seen.name) || card.name || card.ref }),
        el("p", { textContent: meta }),
        el("p", { className: "card-text", textContent: shown((seen && seen.text) || card.text || card.detail) }),
        reveal));
    }
    $("nfc").hidden = !("NDEFReader" in window) || !state.seat;
  }

  // The log keeps every language of each entry: a language switch rewrites it, and a phone that
  // comes back gets the table's recent log with its hello.
  function linesOf(entry) { return entry.lines[state.lang] || entry.lines.fr || []; }

  function renderLog() {
    const list = $("log-list");
    list.replaceChildren();
    for (const entry of state.logs) for (const line of linesOf(entry)) list.prepend(el("li", { textContent: line }));
    while (list.childNodes.length > 100) list.lastChild.remove();
  }

  function log(entry) {
    state.logs.push(entry);
    if (state.logs.length > 100) state.logs.shift();
    renderLog();
  }

  // -- talking to the table ------------------------------------------------------------------
  async function api(path, body) {
    const response = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, state.token ? { Authorization: "Bearer " + state.token } : {}),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { status: response.status, data };
  }

  async function command(text) {
    const { data } = await api("/api/command", { command: text, lang: state.lang });
    if (data && data.ok === false) announce((data.lines || []).join(" "), true);
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/ws?token=" + encodeURIComponent(state.token));
    state.ws = ws;
    ws.onopen = () => { state.retry = 500; state.status = "online"; renderWords(); };
    ws.onmessage = (event) => receive(JSON.parse(event.data));
    ws.onclose = (event) => {
      if (event.code === 4403) { state.status = "revoked"; renderWords(); announce(w("revoked"), true); return; }
      state.status = "offline";
      renderWords();
      setTimeout(connect, state.retry);
      state.retry = Math.min(state.retry * 2, 5000);
    };
  }

  function receive(msg) {
    if (msg.type === "hello") {
      state.role = msg.role; state.seat = msg.seat; state.name = msg.name || "";
      state.table = msg.table; state.cards = msg.cards || [];
      state.revision = msg.table ? msg.table.revision : -1;
      state.logs = msg.log || [];
      render();
      renderLog();
    } else if (msg.type === "state") {
      if (msg.table && msg.table.revision < state.revision) return;
      state.table = msg.table; state.revision = msg.table ? msg.table.revision : -1;
      render();
    } else if (msg.type === "log" || msg.type === "read") {
      log(msg);
      announce(linesOf(msg).join(" "));
    } else if (msg.type === "card") {
      state.cards.push(msg.card);
      renderCards();
      announce(w("new_card", { name: msg.card.name || msg.card.ref, text: msg.card.text || "" }));
    } else if (msg.type === "revealed") {
      state.cards = state.cards.filter((c) => c.id !== msg.card.id);
      renderCards();
    }
  }

  // -- the page's controls ----------------------------------------------------------------------
  function wire() {
    $("lang").addEventListener("click", () => {
      state.lang = state.lang === "fr" ? "en" : "fr";
      localStorage.setItem("lang", state.lang);
      render();
      renderLog();
    });
    $("speech").addEventListener("change", (e) => {
      state.speak = e.target.checked;
      localStorage.setItem("speak", state.speak ? "1" : "0");
    });
    $("counters").addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (!b) return;
      if (b.dataset.counter) command(b.dataset.counter + " " + b.dataset.amount);
      if (b.dataset.set) {
        const value = parseInt($("set-" + b.dataset.set).value, 10);
        if (!Number.isNaN(value) && value >= 0) command(b.dataset.set + " =" + value);
      }
    });
    $("next").addEventListener("click", () => command("next"));
    $("undo").addEventListener("click", () => command("undo"));
    $("redo").addEventListener("click", () => command("redo"));
    $("card-list").addEventListener("click", async (e) => {
      const b = e.target.closest("button[data-reveal]");
      if (b) await api("/api/reveal", { id: Number(b.dataset.reveal) });
    });
    $("nfc").addEventListener("click", async () => {
      try {
        const reader = new window.NDEFReader();
        await reader.scan();
        announce(w("nfc_ready"));
        reader.onreading = (event) => {
          for (const record of event.message.records) {
            if (record.recordType !== "text") continue;
            const text = new TextDecoder(record.encoding || "utf-8").decode(record.data);
            api("/api/nfc", { ref: text.trim() });
            return;
          }
        };
      } catch (err) { announce(String(err), true); }
    });
    $("rules-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const q = $("rules-q").value.trim();
      if (!q) return;
      const { data } = await api("/api/rules?q=" + encodeURIComponent(q) + "&lang=" + state.lang);
      const box = $("rules-hits");
      box.replaceChildren();
      const hits = (data && data.hits) || [];
      if (!hits.length) box.append(el("p", { textContent: w("no_hits") }));
      for (const hit of hits) box.append(el("h3", { textContent: hit.title }), el("p", { textContent: shown(hit.text) }));
      announce(hits.length ? hits[0].title : w("no_hits"));
    });
    $("join-form").addEventListener("submit", (e) => { e.preventDefault(); join($("code").value); });
  }

  // A code (typed, or from the QR code's link) joins once; a later device for the same seat
  // waits here until the table's host accepts or refuses it.
  async function join(code) {
    let { status, data } = await api("/api/join", { code: code });
    while (status === 202 && data && data.pending) {
      $("join-error").textContent = (data.lines || []).join(" ") || w("ask_host");
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const pending = data.pending;
      ({ status, data } = await api("/api/join/" + encodeURIComponent(pending)));
      if (status === 202) data = Object.assign({ lines: [w("ask_host")] }, data);
    }
    if (status === 200 && data && data.token) {
      $("join-error").textContent = "";
      history.replaceState(null, "", "#t=" + data.token);
      start(data.token);
    } else {
      $("join-error").textContent = data && data.lines ? data.lines.join(" ") : String(status);
    }
  }

  function start(token) {
    state.token = token;
    if (state.ws) { state.ws.onclose = null; state.ws.close(); }
    connect();
  }

  async function main() {
    try { state.words = await (await fetch("/api/words")).json(); } catch (e) { state.words = {}; }
    wire();
    render();
    const hash = new URLSearchParams(location.hash.slice(1));
    if (hash.get("t")) start(hash.get("t"));
    else if (hash.get("c")) join(hash.get("c"));
  }
  main();
})();
