// shoectl dealer console, Texas Hold'em Bonus: the board, the seats and their wagers, the
// cards the camera asks for (confirm or key), the decisions, each wager's result.
// Loaded after console.js, whose render() calls renderHoldem(t) at a hold'em table.
"use strict";

const HE_WAGERS = ["ante", "bonus", "flop", "turn", "river"];
const HE_RANKS = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"];
const HE_SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const HE_AREAS = { flop: "FLOP", turn: "TURN", river: "RIVER", dealer: "DEALER'S" };
const HE_CARD_STAGES = new Set(["flop", "turn", "river", "dealer", "showdown"]);

let hePanelSeat = null;
let hePanelBet = "ante";
let hePanelAmount = null;
let keyRank = null;
let keySuit = null;
let heActionsKey = "";
const heSeatButtons = new Map();

function heSigned(cents) {
  return (cents > 0 ? "+" : "") + money(cents);
}

function heLine(className, text) {
  const el = document.createElement("div");
  el.className = className;
  el.textContent = text;
  return el;
}

// The area whose card is due now, as the dealer calls it ("the river card", "seat 3's card").
function heWhere(h) {
  if (h.asked) return h.asked.seat ? `SEAT ${h.asked.seat}'s CARD` : `${HE_AREAS[h.asked.area]} CARD`;
  if (h.stage === "showdown") {
    const next = Object.keys(h.seats).map(Number).sort((a, b) => b - a)
      .find((n) => h.seats[n].nets === null);
    return next ? `SEAT ${next}'s CARD` : "CARD";
  }
  return `${HE_AREAS[h.stage] || ""} CARD`;
}

// One seat: its wagers (placed, or sensed while betting), its decision, its exposed cards.
function heSeatLines(t, number) {
  const h = t.holdem;
  const lines = [heLine("seat-no", `SEAT ${number}`)];
  const seat = h.seats[String(number)];
  const betting = h.betting[String(number)];
  if (seat) {
    const w = seat.wagers;
    lines.push(heLine("he-wagers", HE_WAGERS.filter((name) => name === "ante" || w[name])
      .map((name) => `${name.toUpperCase()} ${money(w[name])}`).join(" · ")));
    if (seat.folded) lines.push(heLine("result", "FOLDED"));
    else if (h.to_decide.includes(number)) lines.push(heLine("he-due", "TO DECIDE"));
    else if (seat.nets) lines.push(heLine("result", "SETTLED"));
    if (seat.cards.length) lines.push(heHand(seat.cards));
  } else if (betting) {
    const bet = (name) => {
      const cents = betting[name];
      const sensed = betting[`${name}_sensed`] ? " (chips)" : "";
      return cents === null ? `${name.toUpperCase()} ? not known${sensed}`
        : `${name.toUpperCase()} ${money(cents)}${sensed}`;
    };
    lines.push(heLine("he-wagers", ["ante", "bonus"].filter((name) => betting[name] !== null
      || betting[`${name}_sensed`]).map(bet).join(" · ")));
  }
  return lines;
}

function heHand(cards) {
  const row = document.createElement("div");
  row.className = "hand";
  cards.forEach((code) => row.appendChild(cardEl(code)));
  return row;
}

// Each settled seat's wagers, one row a seat: "SEAT 1 AC AH ANTE 0.00 · BONUS +150.00 ...".
function heResultRows(t) {
  const h = t.holdem;
  const last = h.stage === null && t.last_round && t.last_round.board ? t.last_round : null;
  const settled = last ? Object.entries(last.seats)
    : Object.entries(h.seats).filter(([, seat]) => seat.nets);
  return settled.map(([number, seat]) => {
    const row = document.createElement("div");
    row.className = "he-result";
    row.dataset.seat = number;
    const label = `${last ? "LAST ROUND " : ""}SEAT ${number}${seat.folded ? " FOLDED" : ""}`;
    row.append(heLine("seat-no", label));
    if (seat.cards.length) row.append(heHand(seat.cards));
    row.append(...heResults(seat.nets));
    return row;
  });
}

// Each wager's result, then the seat's net: "ANTE 0.00 · BONUS +150.00 · FLOP +10.00".
function heResults(nets) {
  const made = HE_WAGERS.filter((name) => name === "ante" || nets[name]);
  const total = HE_WAGERS.reduce((sum, name) => sum + nets[name], 0);
  return [heLine("he-nets", made.map((name) => `${name.toUpperCase()} ${heSigned(nets[name])}`)
    .join(" · ")), heLine("result", `NET ${heSigned(total)}`)];
}

function renderHoldemSeat(t, number) {
  let el = heSeatButtons.get(number);
  if (!el) {
    el = document.createElement("button");
    el.dataset.seat = number;
    el.addEventListener("click", () => openHoldemPanel(number));
    heSeatButtons.set(number, el);
  }
  const h = t.holdem;
  const playing = Boolean(h.seats[String(number)] || h.betting[String(number)]);
  el.className = "seat he-seat" + (playing ? " in-play" : "")
    + (h.to_decide.includes(number) ? " due" : "");
  el.replaceChildren(...heSeatLines(t, number));
  return el;
}

// What the dealer taps now: each seat's decision, the camera's guess, keying the card due.
function renderHoldemActions(t) {
  const h = t.holdem;
  const accepting = new Set(t.accepting);
  const key = JSON.stringify([t.accepting, h.to_decide, h.asked, h.stage, h.board.length]);
  if (key === heActionsKey) return;
  heActionsKey = key;
  const buttons = [];
  const button = (text, className, command) => {
    const el = document.createElement("button");
    el.textContent = text;
    el.className = className;
    el.dataset.command = command.command;
    if (command.seat) el.dataset.seat = command.seat;
    el.addEventListener("click", () => send(command));
    buttons.push(el);
  };
  if (h.to_decide.length) {
    const seat = h.to_decide[0];
    const other = h.stage === "play_or_fold" ? "fold" : "check";
    if (accepting.has("bet")) button(`SEAT ${seat} BET`, "go", { command: "bet", seat });
    if (accepting.has(other)) {
      button(`SEAT ${seat} ${other.toUpperCase()}`, "stop", { command: other, seat });
    }
  }
  if (h.asked && h.asked.guess && accepting.has("confirm_card")) {
    button(`CONFIRM ${h.asked.guess.replace("T", "10")}`, "go", { command: "confirm_card" });
  }
  if (accepting.has("key_card") && (h.asked || HE_CARD_STAGES.has(h.stage)) && !h.held) {
    const el = document.createElement("button");
    el.textContent = h.asked ? "KEY THE CARD" : "KEY A CARD";
    el.id = "he-key-open";
    el.addEventListener("click", () => openKeyPanel(heWhere(h)));
    buttons.push(el);
  }
  $("he-actions").replaceChildren(...buttons);
}

function renderHoldem(t) {
  const h = t.holdem;
  const last = h.stage === null && t.last_round && t.last_round.board ? t.last_round : null;
  $("holdem").hidden = false;
  $("dealer").querySelector(".label").textContent = last ? "DEALER (LAST)" : "DEALER";
  $("dealer-cards").replaceChildren(...(last ? last.dealer : h.dealer).map(cardEl));
  $("he-board-label").textContent = last ? "BOARD (LAST)" : "BOARD";
  $("he-board").replaceChildren(...(last ? last.board : h.board).map(cardEl));
  const ask = $("he-ask");
  ask.hidden = !h.asked;
  if (h.asked) {
    const guess = h.asked.guess ? ` (camera: ${h.asked.guess.replace("T", "10")}?)` : "";
    ask.textContent = `THE CAMERA ASKS FOR THE ${heWhere(h)}${guess}: confirm or key it`;
  }
  renderHoldemActions(t);
  // While betting every seat may take a wager; in a round only the seats in it are shown.
  const shown = t.phase === "betting" ? t.seats.map((seat) => seat.seat)
    : Object.keys(h.seats).map(Number);
  const holder = $("he-seats");
  holder.className = `seats he-seats ${t.phase === "betting" ? "all" : "playing"}`;
  const seats = shown.map((n) => renderHoldemSeat(t, n));
  if (holder.children.length !== seats.length
      || seats.some((el, i) => holder.children[i] !== el)) holder.replaceChildren(...seats);
  $("he-results").replaceChildren(...heResultRows(t));
  if (hePanelSeat !== null && !t.accepting.includes("wager")) closeHoldemPanel();
  if (keyPanelOpen() && !t.accepting.includes("key_card")) closeKeyPanel();
}

// ---------------------------------------------------------------- ante and bonus
function openHoldemPanel(seat) {
  if (!table || !table.accepting.includes("wager")) return;
  hePanelSeat = seat;
  hePanelAmount = null;
  chooseBet("ante");
  $("hp-seat").textContent = seat;
  $("holdem-panel").hidden = false;
}

function closeHoldemPanel() {
  hePanelSeat = null;
  $("holdem-panel").hidden = true;
}

function chooseBet(bet) {
  hePanelBet = bet;
  hePanelAmount = null;
  $("hp-bet").textContent = bet.toUpperCase();
  $("hp-ante").classList.toggle("chosen", bet === "ante");
  $("hp-bonus").classList.toggle("chosen", bet === "bonus");
  heShowAmount();
}

function heShowAmount() {
  $("hp-amount").textContent = hePanelAmount === null ? "not chosen" : money(hePanelAmount);
}

document.querySelectorAll("#hp-chips .chip").forEach((chip) => {
  chip.addEventListener("click", () => {
    hePanelAmount = (hePanelAmount || 0) + Number(chip.dataset.chip);
    heShowAmount();
  });
});
$("hp-ante").addEventListener("click", () => chooseBet("ante"));
$("hp-bonus").addEventListener("click", () => chooseBet("bonus"));
$("hp-clear").addEventListener("click", () => { hePanelAmount = null; heShowAmount(); });
$("hp-close").addEventListener("click", closeHoldemPanel);
// DONE sends the wager and moves on at once (the ante to the bonus, the bonus closes the
// panel), so chips tapped before the table answers count for the next wager, not this one.
$("hp-done").addEventListener("click", () => {
  if (hePanelAmount === null) { toast("tap the chips first"); return; }
  const command = { command: "wager", seat: hePanelSeat, bet: hePanelBet,
    cents: hePanelAmount };
  if (hePanelBet === "ante") chooseBet("bonus"); else closeHoldemPanel();
  send(command);
});

// ---------------------------------------------------------------- keying a card
function keyPanelOpen() {
  return !$("key-panel").hidden;
}

function keyButton(text, data, onTap) {
  const el = document.createElement("button");
  el.textContent = text;
  Object.assign(el.dataset, data);
  el.addEventListener("click", () => onTap(el));
  return el;
}

function showKeyed() {
  $("kp-card").textContent = keyRank && keySuit ? (keyRank + keySuit).replace("T", "10")
    : "choose rank and suit";
  document.querySelectorAll("#kp-ranks button").forEach((b) => {
    b.classList.toggle("chosen", b.dataset.rank === keyRank);
  });
  document.querySelectorAll("#kp-suits button").forEach((b) => {
    b.classList.toggle("chosen", b.dataset.suit === keySuit);
  });
}

function openKeyPanel(where) {
  keyRank = null;
  keySuit = null;
  $("kp-where").textContent = where;
  showKeyed();
  $("key-panel").hidden = false;
}

function closeKeyPanel() {
  $("key-panel").hidden = true;
}

$("kp-ranks").replaceChildren(...HE_RANKS.map((rank) => keyButton(rank.replace("T", "10"),
  { rank }, () => { keyRank = rank; showKeyed(); })));
$("kp-suits").replaceChildren(...HE_SUITS.map(([suit, symbol]) => {
  const el = keyButton(symbol, { suit }, () => { keySuit = suit; showKeyed(); });
  if (suit === "H" || suit === "D") el.classList.add("red");
  return el;
}));
$("kp-close").addEventListener("click", closeKeyPanel);
$("kp-key").addEventListener("click", async () => {
  if (!keyRank || !keySuit) { toast("choose the card's rank and suit"); return; }
  if (await send({ command: "key_card", card: keyRank + keySuit }) === 200) closeKeyPanel();
});
