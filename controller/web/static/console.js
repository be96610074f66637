// shoectl dealer console: renders the table pushed by /api/events, sends /api/command.
"use strict";

const LABELS = {
  shuffle_done: "SHUFFLE DONE", no_more_bets: "NO MORE BETS", stand: "STAND", hit: "HIT",
  double: "DOUBLE", split: "SPLIT", surrender: "SURRENDER", rescue: "RESCUE",
  error_exposed: "EXPOSED", error_unexposed: "NOT EXPOSED", new_shoe: "NEW SHOE",
  dealer_missed_card: "DEALER MISSED A CARD",
};
const DECISIONS = ["stand", "hit", "double", "split", "surrender", "rescue"];
const ORDER = ["shuffle_done", "no_more_bets", ...DECISIONS, "error_exposed",
  "error_unexposed", "new_shoe", "dealer_missed_card"];
const RED = new Set(["H", "D"]);

let table = null;
let panelSeat = null;
let panelAmount = null;
const lastMain = JSON.parse(localStorage.getItem("shoectl.lastMain") || "{}");

const $ = (id) => document.getElementById(id);

function money(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}

function cardEl(code) {
  const el = document.createElement("span");
  el.className = "card" + (RED.has(code.slice(-1)) ? " red" : "");
  el.textContent = code.replace("T", "10");
  return el;
}

function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 6000);
}

async function send(command) {
  const response = await fetch("api/command", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(command),
  });
  const body = await response.json();
  if (response.status === 200) {
    render(body);
  } else {
    toast(body.error + (body.what_to_do ? ` — ${body.what_to_do}` : ""));
  }
  return response.status;
}

const seatButtons = new Map();

// One button per seat, kept across updates (a tap never lands on a button just replaced).
function renderSeat(seat, due) {
  let el = seatButtons.get(seat.seat);
  if (!el) {
    el = document.createElement("button");
    el.dataset.seat = seat.seat;
    el.addEventListener("click", () => openPanel(seat.seat));
    seatButtons.set(seat.seat, el);
  }
  el.className = "seat" + (seat.in_play ? " in-play" : "") + (due ? " due" : "");
  el.replaceChildren();
  const head = document.createElement("div");
  head.className = "seat-no";
  head.textContent = `SEAT ${seat.seat}` + (seat.in_play ? ` · ${seat.main === null ? "?" : money(seat.main)}` : "");
  el.appendChild(head);
  seat.hands.forEach((hand) => {
    const row = document.createElement("div");
    row.className = "hand";
    hand.cards.forEach((code) => row.appendChild(cardEl(code)));
    const total = document.createElement("span");
    total.className = "total";
    total.textContent = `${hand.soft ? "soft " : ""}${hand.total}`;
    row.appendChild(total);
    if (hand.result) {
      const result = document.createElement("span");
      result.className = "result";
      result.textContent = hand.result.toUpperCase() + (hand.net === null ? "" : ` ${money(hand.net)}`);
      row.appendChild(result);
    }
    el.appendChild(row);
  });
  return el;
}

let actionsKey = "";

// The action bar is rebuilt only when what it offers changes.
function renderActions(t) {
  const key = JSON.stringify([t.accepting, (t.insurance || []).slice(0, 1)]);
  if (key === actionsKey) return;
  actionsKey = key;
  const bar = $("actions");
  bar.replaceChildren();
  const accepting = new Set(t.accepting);
  ORDER.filter((name) => accepting.has(name)).forEach((name) => {
    const button = document.createElement("button");
    button.textContent = LABELS[name];
    button.dataset.command = name;
    button.className = name === "no_more_bets" || name === "shuffle_done" ? "go" : "";
    button.addEventListener("click", () => send({ command: name }));
    bar.appendChild(button);
  });
  (t.insurance || []).slice(0, 1).forEach((seat) => {
    [[true, "YES"], [false, "NO"]].forEach(([take, word]) => {
      const button = document.createElement("button");
      button.textContent = `SEAT ${seat} INSURANCE ${word}`;
      button.dataset.command = "insurance";
      button.dataset.seat = seat;
      button.dataset.take = take;
      button.className = take ? "go" : "stop";
      button.addEventListener("click", () => send({ command: "insurance", seat, take }));
      bar.appendChild(button);
    });
  });
}

function render(t) {
  table = t;
  $("table-name").textContent = t.table;
  $("phase").textContent = t.phase.replace(/_/g, " ");
  $("round").textContent = t.round ? `round ${t.round}` : "";
  $("prompt").textContent = t.prompt;
  const meter = $("meter");
  meter.hidden = t.meter === null;
  if (t.meter !== null) meter.textContent = `BLAZING 7's ${money(t.meter)}`;
  const faults = $("faults");
  faults.hidden = t.faults.length === 0;
  faults.replaceChildren(...t.faults.map((f) => {
    const el = document.createElement("div");
    el.className = "fault";
    el.textContent = `${f.kind.replace(/_/g, " ").toUpperCase()}: ${f.what_to_do}`;
    return el;
  }));
  $("dealer-cards").replaceChildren(...t.dealer.cards.map(cardEl));
  $("dealer-bj").hidden = t.dealer.blackjack !== true;
  const due = t.next_card && t.next_card.to === "seat" ? t.next_card.seat : null;
  const seats = t.seats.map((seat) => renderSeat(seat, seat.seat === due));
  const holder = $("seats");
  if (holder.children.length !== seats.length) holder.replaceChildren(...seats);
  t.seats.filter((s) => s.in_play && s.main !== null).forEach((s) => { lastMain[s.seat] = s.main; });
  localStorage.setItem("shoectl.lastMain", JSON.stringify(lastMain));
  renderActions(t);
  if (panelSeat !== null && !t.accepting.includes("seat")
      && !(t.insurance || []).includes(panelSeat)) closePanel();
}

function openPanel(seat) {
  if (!table) return;
  const insurance = (table.insurance || []).includes(seat);
  if (!insurance && !table.accepting.includes("seat")) return;
  $("panel-insurance").hidden = !insurance;
  $("panel-bet").hidden = insurance;
  $("panel-bet-title").hidden = insurance;
  panelSeat = seat;
  const current = table.seats.find((s) => s.seat === seat);
  panelAmount = current && current.in_play ? current.main : null;
  $("panel-seat").textContent = seat;
  showAmount();
  $("seat-panel").hidden = false;
}

function closePanel() {
  panelSeat = null;
  $("seat-panel").hidden = true;
}

function showAmount() {
  $("panel-amount").textContent = panelAmount === null ? "not known" : money(panelAmount);
}

function seatIn(main) {
  const command = { command: "seat", seat: panelSeat, in_play: true };
  if (main !== null) command.main = main;
  return send(command);
}

document.querySelectorAll("#chips .chip").forEach((chip) => {
  chip.addEventListener("click", () => {
    panelAmount = (panelAmount || 0) + Number(chip.dataset.chip);
    showAmount();
  });
});
$("panel-ins-yes").addEventListener("click", async () => {
  if (await send({ command: "insurance", seat: panelSeat, take: true }) === 200) closePanel();
});
$("panel-ins-no").addEventListener("click", async () => {
  if (await send({ command: "insurance", seat: panelSeat, take: false }) === 200) closePanel();
});
$("panel-ins-close").addEventListener("click", closePanel);
$("panel-clear").addEventListener("click", () => { panelAmount = null; showAmount(); });
$("panel-unknown").addEventListener("click", async () => { await seatIn(null); closePanel(); });
$("panel-same").addEventListener("click", async () => {
  const main = lastMain[panelSeat];
  if (main === undefined) { toast(`seat ${panelSeat} had no known main wager`); return; }
  await seatIn(main);
  closePanel();
});
$("panel-out").addEventListener("click", async () => {
  await send({ command: "seat", seat: panelSeat, in_play: false });
  closePanel();
});
$("panel-done").addEventListener("click", async () => {
  if (await seatIn(panelAmount) === 200) closePanel();
});

function connect() {
  const events = new EventSource("api/events");
  events.onopen = () => { $("link").textContent = "live"; $("link").className = "link"; };
  events.onmessage = (message) => {
    const data = JSON.parse(message.data);
    render(data.table);
    document.body.dataset.seq = data.seq;
  };
  events.onerror = () => { $("link").textContent = "reconnecting"; $("link").className = "link down"; };
}

connect();
