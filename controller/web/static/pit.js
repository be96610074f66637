// shoectl pit view: renders what /api/pit/events pushes; at a community table the attendant
// adds and cashes out the stations' credits (POST api/pit/station/N/credits); at a linked table
// the supervisor settles by hand a hit the progressive controller rejected
// (POST api/pit/progressive/settle).
"use strict";

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function render(p) {
  $("table-name").textContent = p.table;
  $("game").textContent = p.game;
  $("phase").textContent = p.phase.replace(/_/g, " ");
  $("round").textContent = p.round;
  $("rounds").textContent = `${p.rounds_settled} / ${p.rounds_void}`;
  $("faults").textContent = p.faults.length ? p.faults.map((f) => `${f.kind}: ${f.what_to_do}`).join("; ") : "none";
  $("faults").className = p.faults.length ? "bad" : "ok";
  $("links").textContent = p.links_down.length ? p.links_down.join(", ") : "none";
  $("links").className = p.links_down.length ? "bad" : "ok";
  const refused = Object.entries(p.bad_frames || {});
  $("bad-frames").textContent = refused.length ? refused.map(([line, n]) => `${line} ${n}`).join(", ") : "none";
  $("bad-frames").className = refused.length ? "bad" : "ok";
  // a table that offers no progressive wager has no meters to show
  $("progressive-row").hidden = !p.progressive_offered;
  $("progressive-section").hidden = !p.progressive_offered;
  $("progressive").textContent = p.progressive_open ? "accepted" : "REFUSED";
  $("progressive").className = p.progressive_open ? "ok" : "bad";
  const trusted = p.journal.healthy && p.journal.verified_at_start;
  $("journal").textContent = `${p.journal.verified_at_start ? "verified at start" : "NOT VERIFIED"}, `
    + `${p.journal.healthy ? "healthy" : "FAILING"}, ${p.journal.records} records, head ${p.journal.head.slice(0, 16)}`;
  $("journal").className = trusted ? "ok" : "bad";
  const meters = $("meters");
  meters.replaceChildren(...Object.entries(p.meters).map(([name, value]) => {
    const tr = document.createElement("tr");
    tr.append(cell(name.replace(/_/g, " ")), cell(name === "progressive_in" || name === "hits" ? value : money(value)));
    return tr;
  }));
  const body = $("hits").querySelector("tbody");
  body.replaceChildren(...p.hits.slice().reverse().map((h) => {
    const tr = document.createElement("tr");
    tr.append(cell(h.round), cell(h.seat), cell(h.kind), cell(money(h.paid)));
    return tr;
  }));
}

// The wheel-bias monitor (roulette tables only): Pearson's chi-square over the last N spins.
function renderToday(today) {
  const text = (id, value) => { document.getElementById(id).textContent = value; };
  if (!today) {
    text("today-rounds", "no round yet today");
    return;
  }
  text("today-rounds", today.rounds + " / " + today.voids);
  text("today-pace", today.rounds_per_hour === null ? "" : today.rounds_per_hour);
  const s = today.seconds_per_round;
  text("today-seconds", s.median === null ? "" : s.median + " s, " + s.p90 + " s");
  text("today-lost", (today.shuffle_seconds / 60).toFixed(0) + " min, " +
                     (today.fault_seconds / 60).toFixed(0) + " min");
  text("today-hold", Object.entries(today.hold).map(([kind, hold]) =>
    kind + " " + (hold === null ? "-" : (100 * hold).toFixed(1) + "%")).join(", "));
  text("today-dealers", Object.entries(today.dealers).map(([who, pace]) =>
    who + " " + pace.rounds).join(", "));
  const chart = document.getElementById("today-chart");
  chart.textContent = "";
  chart.appendChild(hoursChart(today.rounds_by_hour));
}

function renderBias(bias) {
  $("bias").hidden = !bias;
  if (!bias) return;
  $("bias-spins").textContent = `${bias.spins} of the last ${bias.window} (the test needs ${bias.needed}: 5 a pocket)`;
  $("bias-chi").textContent = bias.chi_square === null ? "-" : `${bias.chi_square.toFixed(2)} on ${bias.degrees} degrees of freedom`;
  $("bias-p").textContent = bias.p_value === null ? "-" : bias.p_value.toPrecision(4);
  $("bias-extreme").textContent = bias.extreme ? `${bias.extreme.number} (z ${bias.extreme.z.toFixed(2)})` : "-";
  let verdict = "not enough spins yet";
  let good = true;
  if (bias.enough) {
    good = bias.p_value >= 0.01;
    verdict = bias.p_value < 0.01 ? "UNLIKELY FROM A FAIR WHEEL (p < 1%): check the wheel"
      : (bias.p_value < 0.05 ? "watch: p < 5%" : "consistent with a fair wheel");
  }
  $("bias-verdict").textContent = verdict;
  $("bias-verdict").className = good ? "ok" : "bad";
}

function renderStations(stations) {
  $("stations").hidden = !stations;
  if (!stations) return;
  $("station-meters").querySelector("tbody").replaceChildren(...stations.map((s) => {
    const tr = document.createElement("tr");
    const m = s.meters;
    tr.append(cell(s.station), cell(money(s.credits)), cell(money(s.at_stake)),
      cell(money(m.credits_in)), cell(money(m.credits_out)), cell(money(m.wagered)),
      cell(money(m.won)), cell(m.games_played));
    return tr;
  }));
}

async function credits(action) {
  const station = Number($("credit-station").value);
  const body = { action };
  if (action === "in") body.cents = Math.round(Number($("credit-amount").value) * 100);
  const response = await fetch(`/api/pit/station/${station}/credits`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (response.status === 401) { location.assign("/login"); return; }  // the session ended
  const answer = await response.json();
  $("credit-answer").textContent = response.status === 200
    ? `station ${answer.station}: credits ${money(answer.credits)}` : answer.error;
  $("credit-answer").className = response.status === 200 ? "ok" : "bad";
}
$("credit-in").addEventListener("click", () => credits("in"));
$("credit-out").addEventListener("click", () => credits("out"));

function renderRejected(hits) {
  $("rejected").hidden = !hits || hits.length === 0;
  if (!hits || hits.length === 0) return;
  $("rejected-hits").querySelector("tbody").replaceChildren(...hits.map((h) => {
    const tr = document.createElement("tr");
    tr.append(cell(h.round), cell(h.seat), cell(h.kind), cell(money(h.stake)), cell(h.reason));
    return tr;
  }));
  if ($("settle-round").value === "") {  // the oldest, until the supervisor picks another
    $("settle-round").value = hits[0].round;
    $("settle-seat").value = hits[0].seat;
  }
}

async function settleByHand() {
  const body = {
    round: Number($("settle-round").value), seat: Number($("settle-seat").value),
    cents: Math.round(Number($("settle-amount").value) * 100), reason: $("settle-reason").value,
  };
  const response = await fetch("/api/pit/progressive/settle", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (response.status === 401) { location.assign("/login"); return; }  // the session ended
  const answer = await response.json();
  $("settle-answer").textContent = response.status === 200
    ? `round ${answer.settled.round} seat ${answer.settled.seat}: paid `
      + `${money(answer.settled.paid)} by hand` : answer.error;
  $("settle-answer").className = response.status === 200 ? "ok" : "bad";
  if (response.status === 200) $("settle-round").value = "";
}
$("settle").addEventListener("click", settleByHand);

const events = new EventSource("api/pit/events");
events.onopen = () => { $("link").textContent = "live"; };
events.onmessage = (message) => {
  const pit = JSON.parse(message.data).table;
  render(pit);
  renderBias(pit.wheel_bias);
  renderToday(pit.today);
  renderStations(pit.stations);
  renderRejected(pit.rejected_hits);
};
events.onerror = async () => {
  $("link").textContent = "reconnecting";
  const answer = await fetch("/api/pit");  // an ended session: back to the login page
  if (answer.status === 401) location.assign("/login");
};
