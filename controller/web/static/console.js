// shoectl dealer console: renders the table pushed by /api/events, sends /api/command.
"use strict";

const LABELS = {
  shuffle_done: "SHUFFLE DONE", no_more_bets: "NO MORE BETS", stand: "STAND", hit: "HIT",
  double: "DOUBLE", split: "SPLIT", surrender: "SURRENDER", rescue: "RESCUE",
  error_exposed: "EXPOSED", error_unexposed: "NOT EXPOSED", new_shoe: "NEW SHOE",
  dealer_missed_card: "DEALER MISSED A CARD", losers_cleared: "LOSERS CLEARED",
  winners_paid: "WINNERS PAID", last_bets: "LAST BETS", hole_cards_dealt: "HOLE CARDS DEALT",
  launch: "SPIN", next_round: "NEXT ROUND",
};
const DECISIONS = ["stand", "hit", "double", "split", "surrender", "rescue"];
const ORDER = ["shuffle_done", "last_bets", "launch", "no_more_bets", "hole_cards_dealt", ...DECISIONS,
  "error_exposed",
  "error_unexposed", "new_shoe", "dealer_missed_card", "losers_cleared", "winners_paid",
  "next_round"];

let table = null;
let panelSeat = null;
let panelAmount = null;
const lastMain = JSON.parse(localStorage.getItem("shoectl.lastMain") || "{}");

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

// One hand: its cards, its total and, once settled, its result and what to do about it.
function handEl(hand) {
  const row = document.createElement("div");
  row.className = "hand";
  hand.cards.forEach((code) => row.appendChild(cardEl(code)));
  const total = document.createElement("span");
  total.className = "total";
  total.textContent = `${hand.soft ? "soft " : ""}${hand.total}`;
  row.appendChild(total);
  if (hand.result) {
    const result = document.createElement("span");
    result.className = `result ${hand.result}`;
    if (hand.pay !== undefined) {
      result.append(...wordsEl(`MAIN ${hand.result.toUpperCase()}`, hand.pay));
    } else {
      result.textContent = hand.result.toUpperCase() + (hand.net === null ? "" : ` ${money(hand.net)}`);
    }
    row.appendChild(result);
  }
  return row;
}

// "WHAT · PAY 5.00": what to do about it is never broken over two lines.
function wordsEl(what, pay) {
  const head = document.createElement("span");
  head.textContent = `${what} ·`;
  const tail = document.createElement("span");
  tail.className = "words";
  tail.textContent = pay;
  return [head, document.createTextNode(" "), tail];
}

// A settled seat's side wagers, each on a line of its own under its name, and the seat's net.
function settledLines(seat) {
  const lines = seat.side_bets.map((side) => {
    const el = document.createElement("div");
    el.className = `side ${side.result || "waiting"}`;
    el.append(...wordsEl(`${side.name} ${(side.result || "").toUpperCase()}`.trim(), side.pay));
    return el;
  });
  if (seat.net !== null && (seat.side_bets.length || seat.hands.length > 1)) {
    const net = document.createElement("div");
    net.className = "seat-net";
    net.textContent = `SEAT NET ${seat.net > 0 ? "+" : ""}${money(seat.net)}`;
    lines.push(net);
  }
  return lines;
}

// One button per seat, kept across updates (a tap never lands on a button just replaced).
function renderSeat(seat, due, settled) {
  let el = seatButtons.get(seat.seat);
  if (!el) {
    el = document.createElement("button");
    el.dataset.seat = seat.seat;
    el.addEventListener("click", () => openPanel(seat.seat));
    seatButtons.set(seat.seat, el);
  }
  el.className = "seat" + (seat.in_play ? " in-play" : "") + (due ? " due" : "")
    + (settled ? " settled" : "");
  el.replaceChildren();
  const head = document.createElement("div");
  head.className = "seat-no";
  head.textContent = `SEAT ${seat.seat}` + (seat.in_play ? ` · ${seat.main === null ? "?" : money(seat.main)}` : "");
  el.appendChild(head);
  if (settled) {
    settled.hands.forEach((hand) => el.appendChild(handEl(hand)));
    el.append(...settledLines(settled));
  } else {
    seat.hands.forEach((hand) => el.appendChild(handEl(hand)));
  }
  return el;
}

// Baccarat: the Player's and the Banker's cards with their totals, then the result.
function renderCoup(coup) {
  $("dealer").querySelector(".label").textContent = coup.settled ? `COUP ${coup.round}` : "COUP";
  const parts = [];
  ["player", "banker"].forEach((side) => {
    const tag = document.createElement("span");
    tag.className = "coup-side";
    tag.id = `coup-${side}`;
    tag.textContent = side.toUpperCase();
    parts.push(tag, ...coup[side].cards.map(cardEl));
    if (coup[side].total !== null) {
      const total = document.createElement("span");
      total.className = "dealer-total";
      total.id = `coup-${side}-total`;
      total.textContent = String(coup[side].total);
      parts.push(total);
    }
  });
  if (coup.result) {
    const result = document.createElement("span");
    result.className = "dealer-total";
    result.id = "coup-result";
    result.textContent = coup.result === "tie" ? "TIE" : `${coup.result.toUpperCase()} WINS`;
    parts.push(result);
  }
  $("dealer-cards").replaceChildren(...parts);
}

// The dealer's cards: the public ones, a back for each card face down, the total.
function renderDealer(dealer) {
  const cards = dealer.cards.map(cardEl);
  for (let n = 0; n < (dealer.face_down || 0); n += 1) {
    const back = document.createElement("span");
    back.className = "card back";
    back.title = "face down";
    back.textContent = "\u00a0";
    cards.push(back);
  }
  if (dealer.total !== undefined && dealer.total !== null) {
    const total = document.createElement("span");
    total.className = "dealer-total";
    total.textContent = (dealer.face_down ? "showing " : "") + (dealer.soft ? "soft " : "")
      + dealer.total + (dealer.bust ? " BUST" : "");
    cards.push(total);
  }
  $("dealer-cards").replaceChildren(...cards);
}

let actionsKey = "";

// The action bar is rebuilt only when what it offers changes.
function renderActions(t) {
  const key = JSON.stringify([t.accepting, (t.insurance || []).slice(0, 1),
    t.roulette ? t.roulette.spin.number : null, t.turn || null]);
  if (key === actionsKey) return;
  actionsKey = key;
  const bar = $("actions");
  bar.replaceChildren();
  const accepting = new Set(t.accepting);
  ORDER.filter((name) => accepting.has(name)).forEach((name) => {
    const button = document.createElement("button");
    const command = { command: name };
    button.textContent = LABELS[name];
    if (t.turn && DECISIONS.includes(name)) {
      // the hand it decides, named on the button and sent: a late tap is refused, not
      // taken for the next hand
      command.seat = t.turn.seat;
      button.textContent = `${LABELS[name]} SEAT ${t.turn.seat}`
        + (t.turn.hand > 1 || splitSeat(t, t.turn.seat) ? ` HAND ${t.turn.hand}` : "");
      button.dataset.seat = t.turn.seat;
    }
    button.dataset.command = name;
    button.className = ["no_more_bets", "shuffle_done", "launch", "next_round"].includes(name)
      ? "go" : "";
    button.addEventListener("click", () => send(command));
    bar.appendChild(button);
  });
  if (t.roulette && accepting.has("marker") && t.roulette.spin.number !== null) {
    const number = t.roulette.spin.number;
    const button = document.createElement("button");
    button.textContent = `MARKER ON ${number}`;
    button.dataset.command = "marker";
    button.className = "go";
    button.addEventListener("click", () => send({ command: "marker", number }));
    bar.appendChild(button);
  }
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

function splitSeat(t, number) {
  const seat = t.seats.find((s) => s.seat === number);
  return Boolean(seat && seat.hands.length > 1);
}

// A station's wagers in words: "spot 1 10.00 (+ PERFECT PAIRS 5.00), spot 2 10.00".
function stationWagers(w) {
  return Object.entries(w.spots).map(([spot, cents]) => {
    const sides = Object.entries((w.side_bets || {})[spot] || {})
      .map(([name, amount]) => `${name.replace(/-/g, " ").toUpperCase()} ${money(amount)}`);
    return `spot ${spot} ${money(cents)}` + (sides.length ? ` (+ ${sides.join(", ")})` : "");
  }).join(", ");
}

// The community game: every station in play, its phase and timer, where the next card goes.
function renderCommunity(t) {
  const panel = $("community");
  panel.hidden = !t.community;
  if (!t.community) return;
  $("seats").hidden = true;
  const c = t.community;
  $("community-shared").replaceChildren(...c.shared.map(cardEl));
  const rows = c.playing.length ? c.playing.map((p) => {
    const el = document.createElement("div");
    el.className = `station-row ${p.phase}`;
    el.dataset.station = p.station;
    const to = p.next_card ? ` → spot ${p.next_card.spot} hand ${p.next_card.hand}` : "";
    const burn = c.burn_for.includes(p.station) ? " (burn)" : "";
    const timer = p.seconds_left !== null ? ` ${Math.ceil(p.seconds_left)} s` : "";
    const phase = p.phase === "in_play" ? "IN PLAY" : p.phase.toUpperCase();
    el.textContent = `STATION ${p.station}: ${phase}${timer}${to}${burn} · ${stationWagers(p)}`;
    return el;
  }) : c.betting.map((b) => {
    const el = document.createElement("div");
    el.className = "station-row";
    el.textContent = `STATION ${b.station}: ${stationWagers(b)}`;
    return el;
  });
  $("community-stations").replaceChildren(...rows);
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
  if (t.roulette) {
    $("dealer").querySelector(".label").textContent = "WHEEL";
    $("dealer-cards").replaceChildren(...t.roulette.history.map(numberEl));
    renderRoulettePanel(t);
  } else if (t.community) {
    $("dealer-cards").replaceChildren(...t.community.dealer.map(cardEl));
  } else if (t.holdem) {
    renderHoldem(t); // holdem.js: the dealer's cards, the board, the seats
  } else if (t.baccarat) {
    renderCoup(t.baccarat);
  } else {
    renderDealer(t.settled ? t.settled.dealer : t.dealer);
  }
  renderCommunity(t);
  renderSettled(t.settled);
  $("dealer-bj").hidden = (t.settled ? t.settled.dealer : t.dealer).blackjack !== true;
  const due = t.next_card && t.next_card.to === "seat" ? t.next_card.seat : null;
  const settledSeats = new Map(((t.settled || {}).seats || []).map((s) => [s.seat, s]));
  const seats = t.seats.map((seat) => renderSeat(seat, seat.seat === due,
    settledSeats.get(seat.seat)));
  const holder = $("seats");
  holder.hidden = Boolean(t.holdem || t.community);
  holder.classList.toggle("settled", Boolean(t.settled));
  if (holder.children.length !== seats.length) holder.replaceChildren(...seats);
  t.seats.filter((s) => s.in_play && s.main !== null).forEach((s) => { lastMain[s.seat] = s.main; });
  localStorage.setItem("shoectl.lastMain", JSON.stringify(lastMain));
  renderActions(t);
  if (panelSeat !== null && !t.accepting.includes("seat")
      && !(t.insurance || []).includes(panelSeat)) closePanel();
}

// The settled round kept on screen (its hands are in the seats, whom to pay in the prompt)
// until the next round's first chip or seat, NEXT ROUND, or any other phase.
function renderSettled(settled) {
  const banner = $("settled");
  banner.hidden = !settled;
  document.body.classList.toggle("settled", Boolean(settled));
  if (!settled) return;
  banner.textContent = `ROUND ${settled.round} SETTLED`;
}

function openPanel(seat) {
  if (!table || table.holdem) return;
  if (table.roulette) { openRoulettePanel(seat); return; }
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

// ---------------------------------------------------------------- roulette
const OUTSIDE = [["red", "RED"], ["black", "BLACK"], ["odd", "ODD"], ["even", "EVEN"],
  ["low", "1-18"], ["high", "19-36"], ["dozen", "1st 12", 1], ["dozen", "2nd 12", 2],
  ["dozen", "3rd 12", 3], ["column", "COLUMN 1", 1], ["column", "COLUMN 2", 2],
  ["column", "COLUMN 3", 3], ["five-number", "0-00-1-2-3"]];
const INSIDE = { 1: "straight", 2: "split", 3: "street", 4: "corner", 5: "five-number",
  6: "six-line" };
const REDS = new Set(["1", "3", "5", "7", "9", "12", "14", "16", "18", "19", "21", "23",
  "25", "27", "30", "32", "34", "36"]);
let roSeat = null;
let roAmount = null;
const roChosen = new Set();

function colourOf(number) {
  if (number === "0" || number === "00") return "green";
  return REDS.has(number) ? "red" : "black";
}

function numberEl(number) {
  const el = document.createElement("span");
  el.className = `card ${colourOf(number)}`;
  el.textContent = number;
  return el;
}

function buildGrid(wheel) {
  const grid = $("ro-grid");
  if (grid.dataset.wheel === wheel) return;
  grid.dataset.wheel = wheel;
  // The layout turned on its side: the zeros at the left, then 3 over 2 over 1, and so on.
  const cells = wheel === "double" ? [["00", "1 / span 1", 1], ["0", "2 / span 2", 1]]
    : [["0", "1 / span 3", 1]];
  for (let column = 0; column < 12; column += 1) {
    [3, 2, 1].forEach((row) => cells.push([String(column * 3 + row), `${4 - row}`, column + 2]));
  }
  grid.replaceChildren(...cells.map(([number, rows, column]) => {
    const button = document.createElement("button");
    button.textContent = number;
    button.dataset.number = number;
    button.className = colourOf(number);
    button.style.gridRow = rows;
    button.style.gridColumn = String(column);
    button.addEventListener("click", () => {
      if (roChosen.has(number)) roChosen.delete(number); else roChosen.add(number);
      button.classList.toggle("chosen", roChosen.has(number));
    });
    return button;
  }));
  $("ro-outside").replaceChildren(...OUTSIDE.filter(([bet]) => bet !== "five-number"
    || wheel === "double").map(([bet, label, which]) => {
    const button = document.createElement("button");
    button.textContent = label;
    button.dataset.bet = bet;
    if (which) button.dataset.which = which;
    button.addEventListener("click", () => placeWager(bet, which ? { which } : {}));
    return button;
  }));
}

function openRoulettePanel(seat) {
  if (!table.accepting.includes("wager")) return;
  roSeat = seat;
  $("ro-seat").textContent = seat;
  buildGrid(table.roulette.wheel);
  renderRoulettePanel(table);
  $("roulette-panel").hidden = false;
}

function closeRoulettePanel() {
  roSeat = null;
  roChosen.clear();
  document.querySelectorAll("#ro-grid button.chosen").forEach((b) => b.classList.remove("chosen"));
  $("roulette-panel").hidden = true;
}

function renderRoulettePanel(t) {
  if (roSeat === null) return;
  if (!t.accepting.includes("wager")) { closeRoulettePanel(); return; }
  $("ro-amount").textContent = roAmount === null ? "not chosen" : money(roAmount);
  $("ro-wagers").replaceChildren(...t.roulette.wagers.filter((w) => w.seat === roSeat)
    .map((w) => {
      const row = document.createElement("div");
      row.className = "wager";
      const text = document.createElement("span");
      text.textContent = `${w.named} ${money(w.cents)}`;
      const cancel = document.createElement("button");
      cancel.textContent = "TAKE BACK";
      cancel.className = "stop";
      cancel.addEventListener("click", () => send(cancelCommand(w)));
      row.append(text, cancel);
      return row;
    }));
}

function cancelCommand(w) {
  const command = { command: "cancel_wager", seat: w.seat, bet: w.bet, cents: w.cents };
  if (w.bet === "column") command.which = (Number(w.numbers[0]) - 1) % 3 + 1;
  else if (w.bet === "dozen") command.which = Math.floor((Number(w.numbers[0]) - 1) / 12) + 1;
  else if (!["red", "black", "odd", "even", "low", "high", "five-number"].includes(w.bet)) {
    command.numbers = w.numbers;
  }
  return command;
}

async function placeWager(bet, fields) {
  if (roAmount === null) { toast("choose a chip first"); return 0; }
  return send({ command: "wager", seat: roSeat, bet, cents: roAmount, ...fields });
}

document.querySelectorAll("#ro-chips .chip").forEach((chip) => {
  chip.addEventListener("click", () => {
    roAmount = Number(chip.dataset.chip);
    $("ro-amount").textContent = money(roAmount);
  });
});
$("ro-place").addEventListener("click", async () => {
  const numbers = [...roChosen];
  const bet = INSIDE[numbers.length];
  if (!bet) { toast("choose 1 to 6 numbers next to each other"); return; }
  if (await placeWager(bet, bet === "five-number" ? {} : { numbers }) === 200) {
    roChosen.clear();
    document.querySelectorAll("#ro-grid button.chosen").forEach((b) => b.classList.remove("chosen"));
  }
});
$("ro-unselect").addEventListener("click", () => {
  roChosen.clear();
  document.querySelectorAll("#ro-grid button.chosen").forEach((b) => b.classList.remove("chosen"));
});
$("ro-done").addEventListener("click", closeRoulettePanel);

function connect() {
  const events = new EventSource("api/events");
  events.onopen = () => { $("link").textContent = "live"; $("link").className = "link"; };
  events.onmessage = (message) => {
    const data = JSON.parse(message.data);
    render(data.table);
    document.body.dataset.seq = data.seq;
  };
  events.onerror = () => {
    $("link").textContent = "reconnecting"; $("link").className = "link down";
    checkSession();
  };
}

signIn().then(connect);
