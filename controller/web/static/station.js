// shoectl player station: renders /api/station/N/events, sends /api/station/N/command.
// The state is the server's: a page that reconnects shows the station as the table has it.
// Only the chosen chip value (DENOM) and the REPEAT button's 3-second hold live here.
"use strict";

const STATION = Number(location.pathname.split("/").filter(Boolean).pop());
const API = `/api/station/${STATION}`;
const HOLD_MS = 3000;
const ACTIONS = ["hit", "stand", "double", "split"];

let view = null;
let seq = 0;  // each command's "seq": above the last the server took from this station
let denom = Number(sessionStorage.getItem(`shoectl.denom.${STATION}`)) || 0;
let timerAt = 0;

function showError(text) {
  const el = $("error");
  el.textContent = text;
  el.hidden = !text;
  clearTimeout(showError.timer);
  if (text) showError.timer = setTimeout(() => { el.hidden = true; }, 5000);
}

async function send(command) {
  seq += 1;
  const response = await fetch(`${API}/command`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...command, seq }),
  });
  const body = await response.json();
  if (response.status === 200) {
    showError("");
    render(body);
  } else {
    if (response.status === 409 && Number.isInteger(body.seq)) seq = Math.max(seq, body.seq);
    showError(body.error || `refused (${response.status})`);
  }
  return response.status;
}

// A side wager's short label on its box (the name is the API's).
const SIDE_LABELS = { "perfect-pairs": "PERFECT PAIRS", "lucky-ladies": "LUCKY LADIES",
  "match-the-dealer": "MATCH THE DEALER" };

function wager(spot, bet = "main") {
  if (!denom) { showError("choose a chip first"); return; }
  send(bet === "main" ? { command: "wager", spot, cents: denom }
    : { command: "wager", spot, cents: denom, bet });
}

function chooseChip(cents) {
  denom = cents;
  sessionStorage.setItem(`shoectl.denom.${STATION}`, String(cents));
  if (view) renderChips(view);
}

// A chip: a tap chooses it (DENOM); dragged onto a spot it is wagered there.
function chipEl(cents) {
  const el = document.createElement("div");
  el.className = "chip" + (cents === denom ? " chosen" : "");
  el.dataset.cents = String(cents);
  el.textContent = cents >= 100 ? String(cents / 100) : money(cents);
  el.addEventListener("pointerdown", (down) => dragChip(down, el, cents));
  return el;
}

function dragChip(down, el, cents) {
  down.preventDefault();
  let ghost = null;
  const move = (e) => {
    if (!ghost && Math.hypot(e.clientX - down.clientX, e.clientY - down.clientY) > 12) {
      ghost = el.cloneNode(true);
      ghost.classList.add("ghost");
      document.body.appendChild(ghost);
    }
    if (ghost) {
      ghost.style.left = `${e.clientX - 45}px`;
      ghost.style.top = `${e.clientY - 45}px`;
      document.querySelectorAll(".spot").forEach((s) => s.classList.remove("drop"));
      const over = spotAt(e);
      if (over) over.classList.add("drop");
    }
  };
  const up = (e) => {
    document.removeEventListener("pointermove", move);
    document.removeEventListener("pointerup", up);
    document.querySelectorAll(".spot").forEach((s) => s.classList.remove("drop"));
    if (!ghost) { chooseChip(cents); return; }
    ghost.remove();
    const over = spotAt(e);
    if (over) {
      chooseChip(cents);
      const side = document.elementFromPoint(e.clientX, e.clientY).closest(".side");
      wager(Number(over.dataset.spot), side ? side.dataset.bet : "main");
    }
  };
  document.addEventListener("pointermove", move);
  document.addEventListener("pointerup", up);
}

function spotAt(e) {
  const target = document.elementFromPoint(e.clientX, e.clientY);
  return target ? target.closest(".spot") : null;
}

function renderChips(v) {
  const rack = $("chips");
  if (!rack.children.length) v.chips.forEach((c) => rack.appendChild(chipEl(c)));
  if (!denom || !v.chips.includes(denom)) denom = v.chips[0];
  for (const el of rack.children) el.classList.toggle("chosen", Number(el.dataset.cents) === denom);
  $("denom").textContent = money(denom);
}

function handEl(hand, acting) {
  const el = document.createElement("div");
  el.className = "hand" + (hand.busted ? " busted" : "") + (acting ? " acting" : "");
  const cards = document.createElement("div");
  cards.className = "cards";
  hand.cards.forEach((c) => cards.appendChild(cardEl(c)));
  const total = document.createElement("span");
  total.className = "total";
  total.textContent = hand.busted ? `${hand.total} BUST` : (hand.soft ? `soft ${hand.total}` : String(hand.total));
  el.append(cards, total);
  return el;
}

function button(label, cls, onClick) {
  const b = document.createElement("button");
  b.textContent = label;
  b.className = cls;
  b.addEventListener("click", onClick);
  return b;
}

function spotEl(v, number) {
  const spot = v.spots.find((s) => s.spot === number) || { spot: number, hands: [], open: [], wager: 0 };
  const last = v.last_round && v.state === "betting" ? v.last_round.spots.find((s) => s.spot === number) : null;
  const placed = v.state === "betting" ? (v.wagers[String(number)] || 0) : spot.wager;
  const el = document.createElement("div");
  el.className = "spot" + (spot.open.length ? " acting" : "");
  el.dataset.spot = String(number);
  el.id = `spot-${number}`;
  const bet = document.createElement("div");
  bet.className = "bet" + (placed ? " placed" : "");
  bet.textContent = placed ? money(placed) : `SPOT ${number}`;
  bet.addEventListener("click", () => wager(number));
  el.appendChild(bet);
  el.appendChild(sidesEl(v, spot, number, last));
  spot.hands.forEach((h, i) => el.appendChild(handEl(h, spot.acting_hand === i + 1)));
  if (last) {
    last.hands.forEach((h) => el.appendChild(handEl(h, false)));
    const net = document.createElement("div");
    net.className = "net";
    net.textContent = last.net > 0 ? `WIN ${money(last.net)}` : last.net < 0 ? `LOSE ${money(-last.net)}` : "PUSH";
    el.appendChild(net);
  }
  const actions = document.createElement("div");
  actions.className = "actions";
  if (spot.insurance_due) {
    const half = Math.floor(spot.wager / 2);
    actions.append(button(`INSURE ${money(half)}`, "go", () => send({ command: "insurance", spot: number, cents: half })),
      button("NO INSURANCE", "", () => send({ command: "insurance", spot: number, cents: 0 })));
  }
  ACTIONS.filter((a) => spot.open.includes(a)).forEach((a) =>
    actions.appendChild(button(a.toUpperCase(), "go", () => send({ command: a, spot: number }))));
  el.appendChild(actions);
  return el;
}

// The side wagers offered on the spot: a box each; a press adds the DENOM chip to it (the
// spot's main wager first). After a round, each one's result.
function sidesEl(v, spot, number, last) {
  const row = document.createElement("div");
  row.className = "sides";
  const placed = v.state === "betting" ? (v.side_wagers[String(number)] || {}) : (spot.side_bets || {});
  (v.side_bets || []).forEach((name) => {
    const box = document.createElement("div");
    const cents = placed[name] || 0;
    box.className = "side" + (cents ? " placed" : "");
    box.dataset.bet = name;
    box.id = `side-${number}-${name}`;
    const net = last && last.side_bets ? last.side_bets[name] : undefined;
    const result = net === undefined ? "" : net > 0 ? ` WIN ${money(net)}` : ` LOSE ${money(-net)}`;
    box.textContent = `${SIDE_LABELS[name] || name}${cents ? " " + money(cents) : ""}${result}`;
    box.addEventListener("click", (e) => { e.stopPropagation(); wager(number, name); });
    row.appendChild(box);
  });
  return row;
}

function render(v) {
  view = v;
  document.title = `station ${STATION}`;
  $("table-name").textContent = v.table || "";
  $("station-name").textContent = `STATION ${STATION}`;
  $("round").textContent = v.round ? `round ${v.round}` : "";
  // CREDITS are what the player may still wager; what is on the spots shows beside them
  const atStake = v.credits - v.available;
  $("credits").textContent = money(v.available);
  $("at-stake").textContent = atStake > 0 ? `BET ${money(atStake)}` : "";
  $("message").textContent = v.message;
  const sides = v.side_bets && v.side_bets.length
    ? ` · SIDE ${money(v.side_limits.min)} to ${money(v.side_limits.max)}` : "";
  $("limits").textContent = `MIN ${money(v.limits.min)} (across spots) · MAX ${money(v.limits.max)} a spot${sides}`;
  const dealer = v.state === "betting" && v.last_round ? v.last_round.dealer : v.dealer;
  $("dealer-cards").replaceChildren(...dealer.cards.map(cardEl));
  $("dealer-total").textContent = dealer.total ? String(dealer.total) : "";
  $("spots").replaceChildren(...[1, 2, 3].map((n) => spotEl(v, n)));
  const result = $("result");
  result.hidden = !(v.state === "betting" && v.last_round && v.last_round.net !== null);
  if (!result.hidden) {
    const net = v.last_round.net;
    result.textContent = `LAST GAME ${net > 0 ? "WON " + money(net) : net < 0 ? "LOST " + money(-net) : "PUSH"}`;
  }
  const repeat = $("repeat");
  repeat.classList.toggle("auto", v.auto_repeat);
  repeat.textContent = v.auto_repeat ? "AUTO REPEAT ON" : "REPEAT LAST BET";
  timerAt = performance.now();
  tick();
  renderChips(v);
}

function tick() {
  const el = $("timer");
  if (!view || !view.timer) { el.hidden = true; return; }
  const left = Math.max(0, view.timer.left - (performance.now() - timerAt) / 1000);
  el.hidden = false;
  el.textContent = `${Math.ceil(left)} s`;
  el.classList.toggle("low", left < 5);
}
setInterval(tick, 100);

// REPEAT: a press repeats the last bet; held 3 s it turns AUTO REPEAT on; with AUTO REPEAT
// on, a press turns it off. The hold is measured from the press's own timestamps, so a busy
// page cannot turn a long press into a short one.
function wireRepeat() {
  const el = $("repeat");
  let downAt = null;
  let holdTimer = null;
  let held = false;
  el.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    downAt = e.timeStamp;
    held = false;
    el.classList.add("holding");
    holdTimer = setTimeout(() => {
      held = true;
      el.classList.remove("holding");
      if (view && !view.auto_repeat) send({ command: "auto_repeat", on: true });
    }, HOLD_MS);
  });
  const release = (e) => {
    if (downAt === null) return;
    clearTimeout(holdTimer);
    el.classList.remove("holding");
    const long = e.timeStamp - downAt >= HOLD_MS;
    downAt = null;
    if (held) return;
    if (view && view.auto_repeat) send({ command: "auto_repeat", on: false });
    else if (long) send({ command: "auto_repeat", on: true });
    else send({ command: "repeat" });
  };
  el.addEventListener("pointerup", release);
  el.addEventListener("pointercancel", () => { clearTimeout(holdTimer); downAt = null; el.classList.remove("holding"); });
}

function connect() {
  const events = new EventSource(`${API}/events`);
  events.onopen = () => { $("link").textContent = "connected"; $("link").classList.remove("down"); };
  events.onmessage = (e) => render(JSON.parse(e.data).table);
  events.onerror = () => {
    $("link").textContent = "reconnecting"; $("link").classList.add("down");
    checkSession(`${API}/session`);
  };
}

$("clear-last").addEventListener("click", () => send({ command: "clear_last" }));
$("clear-all").addEventListener("click", () => send({ command: "clear_all" }));
wireRepeat();
signIn(`${API}/session`).then((session) => { seq = session.seq || 0; connect(); });
