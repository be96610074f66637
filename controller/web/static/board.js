// shoectl result board: renders what /api/board/events pushes (read-only).
"use strict";

const GROUPS = [["red", "RED"], ["black", "BLACK"], ["green", "ZERO"], ["odd", "ODD"],
  ["even", "EVEN"], ["low", "1-18"], ["high", "19-36"], ["dozen1", "1st 12"],
  ["dozen2", "2nd 12"], ["dozen3", "3rd 12"]];
const BANNERS = {
  betting: ["PLACE YOUR BETS", ""], no_more_bets: ["NO MORE BETS", "stop"],
  marker: ["WINNING NUMBER", "number"], clearing: ["WINNING NUMBER", "number"],
  paying: ["WINNING NUMBER", "number"], round_over: ["WINNING NUMBER", "number"],
  closed: ["TABLE CLOSED", "closed"], fault: ["TABLE STOPPED", "stop"],
};

function money(cents) {
  return `${Math.floor(cents / 100).toLocaleString("en-US")}${cents % 100 ? "." + String(cents % 100).padStart(2, "0") : ""}`;
}

function chip(number, colour, tag = "li") {
  const el = document.createElement(tag);
  el.className = colour;
  el.dataset.colour = colour;
  el.textContent = number;
  return el;
}

function render(b) {
  $("table-name").textContent = b.table;
  $("limits").textContent = `MIN ${money(b.min_wager)}  MAX ${money(b.max_wager)}`;
  const [text, kind] = BANNERS[b.phase] || [b.phase.replace(/_/g, " ").toUpperCase(), "closed"];
  const voided = b.spin && b.spin.void && b.phase === "betting";
  $("banner").textContent = voided ? "NO SPIN - PLACE YOUR BETS" : text;
  $("banner").className = "banner " + (voided ? "stop" : kind);
  document.body.dataset.phase = b.phase;
  const latest = b.last[0];
  const big = $("last-number");
  big.textContent = latest ? latest.number : "\u00a0";
  big.className = "number-big " + (latest ? latest.colour : "green");
  big.dataset.colour = latest ? latest.colour : "";
  $("last-label").textContent = latest ? latest.colour.toUpperCase() : (b.wheel ? "" : "NO WHEEL");
  $("history").replaceChildren(...b.last.map((n) => chip(n.number, n.colour)));
  $("spins").textContent = b.spins;
  const rows = [];
  GROUPS.forEach(([key, label]) => {
    const name = document.createElement("span");
    name.textContent = label;
    const bar = document.createElement("div");
    bar.className = "bar " + (["red", "black", "green"].includes(key) ? key : "");
    const fill = document.createElement("span");
    fill.style.width = `${b.percent[key] || 0}%`;
    bar.appendChild(fill);
    const pct = document.createElement("span");
    pct.className = "pct";
    pct.dataset.group = key;
    pct.textContent = `${b.percent[key] || 0}%`;
    rows.push(name, bar, pct);
  });
  $("percent").replaceChildren(...rows);
  [["hot", b.hot], ["cold", b.cold]].forEach(([id, list]) => {
    $(id).replaceChildren(...list.map((h) => {
      const li = document.createElement("li");
      li.appendChild(chip(h.number, h.colour, "span"));
      li.firstChild.classList.add("n");
      const hits = document.createElement("span");
      hits.className = "hits";
      hits.textContent = `${h.hits}\u00d7`;
      li.appendChild(hits);
      return li;
    }));
  });
}

function connect() {
  const events = new EventSource("api/board/events");
  events.onopen = () => { $("link").textContent = "live"; };
  events.onmessage = (message) => {
    const data = JSON.parse(message.data);
    render(data.table);
    document.body.dataset.seq = data.seq;
  };
  events.onerror = () => { $("link").textContent = "reconnecting"; checkSession(); };
}

signIn().then(connect);
