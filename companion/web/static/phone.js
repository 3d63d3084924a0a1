// The phone page: one seat's screen (or a spectator's). Plain JS, no build, no CDN.
// Every change is announced in the ARIA live region so the phone's own screen reader speaks it.
// What the seat may do comes from the table (table.actions: the list the table screen's seat
// menus show); the page only draws it and sends the answers.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { token: "", role: "", seat: null, name: "", table: null, cards: [], words: {}, logs: [],
                  proposal: null, chosen: [], action: null, pad: null,
                  lang: localStorage.getItem("lang") || ((navigator.language || "fr").startsWith("en") ? "en" : "fr"),
                  speak: localStorage.getItem("speak") === "1", ws: null, retry: 500, revision: -1 };

  // Symbols Atkinson Hyperlegible has no glyph for, drawn as the window draws them
  // (companion/ui/glyphs.yaml): a circled D is printed before a directed action.
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
  // A counter not set yet (a life not given before its card comes) is a dash, never "null".
  function number(value) { return value === null || value === undefined ? "—" : String(value); }
  function words(pair) { return pair ? (pair[state.lang] || pair.fr || "") : ""; }

  // -- rendering --------------------------------------------------------------------------------
  // Each part of the page is drawn from a few inputs; a part whose inputs are the same as when it
  // was last drawn is left as it is: a phone redraws only what a change touched (its battery,
  // and a focused button that stays where the player's finger or screen reader left it).
  const drawn = {};
  function changed(part, ...inputs) {
    const key = JSON.stringify(inputs);
    if (drawn[part] === key) return false;
    drawn[part] = key;
    return true;
  }
  // Text set only when it differs: the same text set again is still a change to lay out.
  function setText(node, text) { if (node.textContent !== text) node.textContent = text; }

  function renderWords() {
    document.documentElement.lang = state.lang;
    document.title = w("title");
    if (changed("words", state.lang)) {
      for (const node of document.querySelectorAll("[data-w]")) node.textContent = w(node.dataset.w);
    }
    $("lang").lang = state.lang === "fr" ? "en" : "fr";  // the button names the other language in its own
    $("speech").checked = state.speak;
    setText($("status"), state.status ? w(state.status) : "");
    // A spectator's page says what it is: it reads, it changes nothing, it has no seat to skip to.
    const spectator = state.role === "spectator";
    setText($("title"), state.seat ? w("my_seat", { name: state.name }) : (spectator ? w("spectator") : w("title")));
    setText($("role-line"), spectator ? w("spectator_page") : "");
    document.querySelector(".skip").hidden = !state.seat;
  }

  function render() {
    renderWords();
    const table = state.table;
    const joined = Boolean(state.role);
    const seated = Boolean(joined && table && state.seat);
    $("join").hidden = joined;
    for (const id of ["turn", "table", "log", "rules"]) $(id).hidden = !(joined && table);
    $("mine").hidden = !seated;
    $("actions").hidden = !seated;
    $("cards").hidden = !seated;
    if (!table) return;
    const names = table.names || {};
    const me = state.seat ? table.seats[state.seat - 1] : null;
    const myTurn = Boolean(state.seat && table.active_seat === state.seat);
    // First: whose turn it is, and the seat's main actions.
    setText($("turn-h"), myTurn ? w("your_turn") : w("turn_of_name", { name: table.active || "—" }));
    setText($("phase-text"), w("phase_line", { turn: table.turn, phase: label(names.phases, table.phase) }));
    setText($("wait-text"), state.seat && !myTurn && table.active ? w("waiting_for", { name: table.active }) : "");
    $("next").hidden = !state.seat;
    $("next").disabled = !myTurn;
    const turnActions = $("turn-actions");
    const mine = (table.actions || {})[String(state.seat)] || [];
    const urgent = mine.filter((a) => a.urgent);
    if (changed("turn-actions", state.lang, urgent)) {
      for (const b of turnActions.querySelectorAll("button[data-action]")) b.remove();
      for (const action of urgent) turnActions.append(actionButton(action));
    }
    // Undo and redo take back this seat's own changes only: off when it has none.
    const own = (table.undo || {})[String(state.seat)] || [0, 0];
    $("undo").hidden = $("redo").hidden = !state.seat;
    $("undo").disabled = !(state.seat && own[0] > 0);
    $("redo").disabled = !(state.seat && own[1] > 0);
    // The seat's counters: one row each, − value +; the value opens the amount pad.
    setText($("mine-h"), w("my_counters"));
    const box = $("counters");
    if (changed("counters", state.lang, me && me.counters, names.counters)) {
      box.replaceChildren();
      for (const [cid, value] of Object.entries(me ? me.counters : {})) {
        if (!(names.counters || {})[cid]) continue;
        const name = label(names.counters, cid);
        const minus = el("button", { type: "button", className: "step", textContent: "−" });
        minus.setAttribute("aria-label", w("minus", { counter: name }));
        minus.dataset.counter = cid; minus.dataset.amount = "-1";
        const plus = el("button", { type: "button", className: "step", textContent: "+" });
        plus.setAttribute("aria-label", w("plus", { counter: name }));
        plus.dataset.counter = cid; plus.dataset.amount = "+1";
        const middle = el("button", { type: "button", className: "value" },
          el("span", { className: "name", textContent: name }), el("span", { className: "number", textContent: number(value) }));
        middle.setAttribute("aria-label", w("set_label", { counter: name, value: number(value) }));
        middle.dataset.pad = cid;
        box.append(el("div", { className: "counter" }, minus, middle, plus));
      }
    }
    // The seat's other actions, from the same list as the table screen's seat menu.
    const list = $("action-list");
    const quiet = mine.filter((a) => !a.urgent);
    if (changed("action-list", state.lang, quiet, mine.length)) {
      list.replaceChildren();
      for (const action of quiet) list.append(actionButton(action));
      if (!mine.length) list.append(el("p", { textContent: w("no_action") }));
    }
    const seats = $("seats");
    if (changed("seats", state.lang, table.seats, names.counters, table.active_seat)) {
      seats.replaceChildren();
      for (const seat of table.seats) {
        const parts = Object.entries(seat.counters).filter(([cid]) => (names.counters || {})[cid])
          .map(([cid, v]) => label(names.counters, cid) + " " + number(v));
        const text = w("seat_line", { n: seat.seat, name: seat.name, counters: parts.join(", ") })
          + (seat.out ? " (" + w("out") + ")" : "");
        seats.append(el("li", { textContent: text, className: seat.seat === table.active_seat ? "active" : "" }));
      }
    }
    renderProposal();
    renderCards();
  }

  function actionButton(action) {
    const b = el("button", { type: "button", textContent: words(action.words), className: action.urgent ? "" : "quiet" });
    b.dataset.action = action.id;
    return b;
  }

  function renderProposal() {
    const p = state.proposal;
    if (!changed("proposal", state.lang, p, state.chosen)) return;
    $("proposal").hidden = !p;
    if (!p) return;
    $("proposal-text").textContent = (p.lines[state.lang] || p.lines.fr || []).join(" ");
    // Essences "of your choice": touched in order, paid first then gained, as on the table screen.
    const c = p.choices;
    const box = $("proposal-choices");
    box.replaceChildren();
    $("proposal-ask").hidden = box.hidden = !c;
    $("proposal-chosen").textContent = "";
    if (!c) return;
    const parts = [];
    if (c.pay) parts.push(w("choose_pay", { count: c.pay }));
    if (c.gain) parts.push(w("choose_gain", { count: c.gain }));
    $("proposal-ask").textContent = parts.join(" ");
    const names = {};
    for (const [id, pair] of c.allowed) {
      names[id] = words(pair) || id;
      const b = el("button", { type: "button", textContent: names[id] });
      b.dataset.essence = id;
      b.addEventListener("click", () => {
        state.chosen.push(id);
        $("proposal-chosen").textContent = w("chosen", { list: state.chosen.map((e) => names[e]).join(", ") });
      });
      box.append(b);
    }
    if (state.chosen.length) {
      $("proposal-chosen").textContent = w("chosen", { list: state.chosen.map((e) => names[e] || e).join(", ") });
    }
  }

  function renderCards() {
    const list = $("card-list");
    if (!changed("cards", state.lang, state.cards, state.seat)) return;
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

  // The log keeps every language of each entry (a language switch rewrites it); newest last,
  // each line with who made the change; a phone that comes back gets the table's recent log.
  function linesOf(entry) { return entry.lines[state.lang] || entry.lines.fr || []; }

  function author(entry) {
    const seats = (state.table && state.table.seats) || [];
    if (entry.type === "read" || entry.by === undefined) return "";
    if (entry.by === null) return w("by_table");
    const seat = seats[entry.by - 1];
    return seat ? seat.name : "";
  }

  // The author first, unless the line already starts with that name ("Ann : réserve -1").
  function appendLog(list, entry) {
    const who = author(entry);
    for (const line of linesOf(entry)) {
      list.append(el("li", { textContent: who && !line.startsWith(who) ? who + " — " + line : line }));
    }
    while (list.childNodes.length > 100) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
  }

  // The whole log, drawn again for a new language or a phone that comes back.
  function renderLog() {
    const list = $("log-list");
    list.replaceChildren();
    for (const entry of state.logs) appendLog(list, entry);
  }

  // A new entry is added under the others: the lines already there stay as they are.
  function log(entry) {
    state.logs.push(entry);
    if (state.logs.length > 100) state.logs.shift();
    appendLog($("log-list"), entry);
  }

  // A refusal is this phone's alone: said here, never in the table's log.
  function refused(data) {
    const text = data && data.lines ? data.lines.join(" ") : "";
    $("refusal").textContent = text;
    announce(text, true);
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
    $("refusal").textContent = "";
    const { data } = await api("/api/command", { command: text, lang: state.lang });
    if (data && data.ok === false) refused(data);
  }

  async function act(id, answers) {
    $("refusal").textContent = "";
    const { data } = await api("/api/action", { id: id, answers: answers || {}, lang: state.lang });
    if (data && data.ok === false) refused(data);
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/ws?token=" + encodeURIComponent(state.token));
    state.ws = ws;
    ws.onopen = () => { state.retry = 500; state.status = "online"; renderWords(); };
    ws.onmessage = (event) => receive(JSON.parse(event.data));
    ws.onclose = (event) => {
      if (event.code === 4403) { state.status = "revoked"; renderWords(); announce(w("revoked"), true); return; }
      // The table restarted or the Wi-Fi dropped: the same token comes back by itself.
      state.status = "offline";
      renderWords();
      setTimeout(connect, state.retry);
      state.retry = Math.min(state.retry * 2, 5000);
    };
  }

  function receive(msg) {
    if (msg.type === "hello") {
      state.role = msg.role; state.seat = msg.seat; state.name = msg.name || "";
      state.table = msg.table; state.cards = msg.cards || []; state.proposal = msg.proposal || null;
      state.revision = msg.table ? msg.table.revision : -1;
      state.logs = msg.log || [];
      render();
      renderLog();
    } else if (msg.type === "state") {
      if (msg.table && msg.table.revision < state.revision) return;
      // The server sends this seat's action list only when it changed: keep the last one.
      if (msg.table && !msg.table.actions && state.table) msg.table.actions = state.table.actions;
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
      state.cards = state.cards.filter((c) => !(msg.seat === state.seat && c.id === msg.card.id));
      renderCards();
    } else if (msg.type === "proposal") {
      state.proposal = msg.proposal; state.chosen = [];
      renderProposal();
      if (msg.proposal) announce((msg.proposal.lines[state.lang] || msg.proposal.lines.fr || []).join(" "));
    }
  }

  // -- an action's questions, in the list's order ----------------------------------------------
  function openAction(action) {
    if (!action.ask.length) { act(action.id, {}); return; }
    state.action = action;
    $("action-title").textContent = words(action.words);
    const fields = $("action-fields");
    fields.replaceChildren();
    action.ask.forEach((ask, n) => {
      const id = "ask-" + n;
      const choices = (action.choices || {})[ask] || [];
      const lab = el("label", { htmlFor: id, textContent: w("ask_" + ask) });
      let input;
      if (ask === "amount") {
        input = el("input", { id: id, type: "number", inputMode: "numeric", min: 0, max: 9999, required: true });
      } else if (ask === "text") {
        input = el("input", { id: id, type: "text", maxLength: 60, required: true });
      } else if (ask === "confirm") {
        input = el("input", { id: id, type: "checkbox", required: true });
      } else if (ask === "essences") {
        const group = el("fieldset", {}, el("legend", { textContent: w("ask_essences") }));
        choices.forEach(([value, shownWords], m) => {
          const cid = id + "-" + m;
          const count = el("input", { id: cid, type: "number", inputMode: "numeric", min: 0, max: 30, value: 0 });
          count.dataset.essence = value;
          group.append(el("div", { className: "field" }, el("label", { htmlFor: cid, textContent: words(shownWords) }), count));
        });
        group.dataset.ask = ask;
        fields.append(group);
        return;
      } else {
        input = el("select", { id: id, required: ask !== "component" });
        for (const [value, shownWords] of choices) input.append(el("option", { value: value, textContent: words(shownWords) }));
        if (ask === "component") input.prepend(el("option", { value: "", textContent: w("typed_below") }));
      }
      input.dataset.ask = ask;
      fields.append(el("div", { className: "field" }, lab, input));
      if (ask === "component") {
        const typed = el("input", { id: id + "-typed", type: "text", maxLength: 60 });
        typed.dataset.typed = "component";
        fields.append(el("div", { className: "field" }, el("label", { htmlFor: id + "-typed", textContent: w("ask_component_typed") }), typed));
      }
    });
    $("action-form").hidden = false;
    const first = fields.querySelector("input, select");
    if (first) first.focus();
  }

  function actionAnswers() {
    const answers = {};
    for (const node of $("action-fields").querySelectorAll("[data-ask]")) {
      const ask = node.dataset.ask;
      if (ask === "amount") answers.amount = Number(node.value);
      else if (ask === "confirm") answers.confirm = node.checked;
      else if (ask === "essences") {
        answers.essences = [];
        for (const count of node.querySelectorAll("[data-essence]")) {
          for (let i = 0; i < Number(count.value || 0); i++) answers.essences.push(count.dataset.essence);
        }
      } else answers[ask] = node.value;
    }
    const typed = $("action-fields").querySelector("[data-typed]");
    if (typed && !answers.component) answers.component = typed.value;
    return answers;
  }

  // -- the amount pad: a tap on a counter's value sets it -------------------------------------
  function openPad(cid) {
    const names = (state.table && state.table.names) || {};
    state.pad = { cid: cid, typed: "", negative: false };
    $("pad-h").textContent = w("set_title", { counter: label(names.counters, cid) });
    const keys = $("pad-keys");
    keys.replaceChildren();
    for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "±", "0", "⌫"]) {
      const b = el("button", { type: "button", textContent: key });
      if (key === "±") b.setAttribute("aria-label", w("sign"));
      if (key === "⌫") b.setAttribute("aria-label", w("erase"));
      b.dataset.key = key;
      keys.append(b);
    }
    showPad();
    $("pad").showModal();
  }

  function showPad() {
    const p = state.pad;
    $("pad-value").textContent = p.typed ? (p.negative ? "−" : "") + p.typed : "…";
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
      if (b.dataset.pad) openPad(b.dataset.pad);
    });
    $("pad-keys").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-key]");
      if (!b || !state.pad) return;
      const p = state.pad;
      if (b.dataset.key === "±") p.negative = !p.negative;
      else if (b.dataset.key === "⌫") p.typed = p.typed.slice(0, -1);
      else if (p.typed.length < 4) p.typed = (p.typed + b.dataset.key).replace(/^0+(?=\d)/, "");
      showPad();
    });
    $("pad-ok").addEventListener("click", () => {
      const p = state.pad;
      $("pad").close();
      // A negative value is sent as typed: the table answers (a refusal says why), never silence.
      if (p && p.typed) command(p.cid + " =" + (p.negative ? "-" : "") + p.typed);
    });
    $("pad-cancel").addEventListener("click", () => $("pad").close());
    $("next").addEventListener("click", () => command("next"));
    $("undo").addEventListener("click", () => command("undo"));
    $("redo").addEventListener("click", () => command("redo"));
    $("proposal-ok").addEventListener("click", async () => {
      const chosen = state.chosen; state.chosen = [];  // a refusal says why; the choice starts again
      await command(["ok"].concat(chosen).join(" "));
      renderProposal();
    });
    $("proposal-no").addEventListener("click", () => command("non"));
    const onAction = (e) => {
      const b = e.target.closest("button[data-action]");
      if (!b || !state.table) return;
      const mine = (state.table.actions || {})[String(state.seat)] || [];
      const action = mine.find((a) => a.id === b.dataset.action);
      if (action) openAction(action);
    };
    $("action-list").addEventListener("click", onAction);
    $("turn-actions").addEventListener("click", onAction);
    $("action-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const action = state.action;
      $("action-form").hidden = true;
      state.action = null;
      if (action) act(action.id, actionAnswers());
    });
    $("action-cancel").addEventListener("click", () => { $("action-form").hidden = true; state.action = null; });
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
    $("command-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const text = $("command").value.trim();
      if (text) { command(text); $("command").value = ""; }
    });
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
