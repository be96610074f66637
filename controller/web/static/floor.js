// The floor's pit view: polls /api/floor and redraws (docs/floor-protocol.md).
"use strict";

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function money(cents) {
  if (cents === null || cents === undefined) return "";
  return (cents / 100).toFixed(2);
}

function drawTables(tables) {
  const body = document.querySelector("#tables tbody");
  body.textContent = "";
  for (const t of tables) {
    const row = document.createElement("tr");
    row.dataset.table = t.table;
    cell(row, t.table, "name");
    cell(row, t.game, "game");
    cell(row, t.phase, "phase");
    cell(row, t.round, "round");
    cell(row, (t.faults || []).map((f) => f.kind).join(", "), "faults");
    cell(row, t.link, "link " + t.link);
    cell(row, t.shipping, "shipping " + t.shipping);
    cell(row, t.journal.records, "records");
    cell(row, t.journal.head, "head");
    const agreement = t.journal.agreement;
    const bad = agreement.startsWith("disagrees") || agreement.startsWith("conflict");
    cell(row, agreement, "agreement " + (bad ? "disagrees" : agreement === "agrees" ? "agrees"
                                                                                   : ""));
    body.appendChild(row);
  }
}

function minutes(seconds) {
  return seconds === null || seconds === undefined ? "" : (seconds / 60).toFixed(0) + " min";
}

function drawToday(tables) {
  const body = document.querySelector("#today tbody");
  body.textContent = "";
  for (const t of tables) {
    const d = t.today;
    if (!d) continue;
    const row = document.createElement("tr");
    row.dataset.table = t.table;
    cell(row, t.table, "name");
    cell(row, d.rounds, "rounds");
    cell(row, d.rounds_per_hour, "pace");
    const spr = d.seconds_per_round;
    cell(row, spr.median === null ? "" : spr.median + " s, " + spr.p90 + " s", "seconds");
    cell(row, minutes(d.shuffle_seconds), "shuffle");
    cell(row, minutes(d.fault_seconds), "fault");
    cell(row, Object.entries(d.hold).map(([kind, hold]) =>
      kind + " " + (hold === null ? "-" : (100 * hold).toFixed(1) + "%")).join(", "), "hold");
    cell(row, Object.entries(d.dealers).map(([who, pace]) => who + " " + pace.rounds).join(", "),
         "dealers");
    cell(row, "", "chart").appendChild(hoursChart(d.rounds_by_hour));
    body.appendChild(row);
  }
}

function drawGroups(groups) {
  const box = document.getElementById("groups");
  box.textContent = "";
  for (const g of groups) {
    const section = document.createElement("section");
    section.dataset.group = g.group;
    const title = document.createElement("h3");
    const pending = g.pending.length ? " — PENDING " + money(g.pending[0].amount) : "";
    title.textContent = g.group + ": " + money(g.meter) + pending + " (controller " +
      g.controller + ")";
    title.className = "meter";
    section.appendChild(title);
    for (const a of g.alarms || []) {  // tables the controller refused: a person looks
      const alarm = document.createElement("p");
      alarm.className = "alarm";
      alarm.textContent = "ALARM " + a.table + ": " + a.reason + " (" + a.count + "x, last " +
        a.last + ")";
      section.appendChild(alarm);
    }
    const list = document.createElement("table");
    list.className = "floor hits";
    for (const h of g.hits) {
      const row = document.createElement("tr");
      cell(row, h.wall);
      cell(row, h.table);
      cell(row, money(h.paid) + (h.disputed ? " (disputed)" : ""),
           h.disputed ? "paid disputed" : "paid");
      list.appendChild(row);
    }
    section.appendChild(list);
    box.appendChild(section);
  }
}

async function poll() {
  try {
    // From the origin: a page opened as http://user:password@host/ cannot fetch a relative URL.
    const answer = await fetch(`${location.origin}/api/floor`, { cache: "no-store" });
    const floor = await answer.json();
    drawTables(floor.tables);
    drawToday(floor.tables);
    drawGroups(floor.groups);
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (err) {
    document.getElementById("updated").textContent = "floor process not answering";
  }
  setTimeout(poll, 1000);
}

poll();
