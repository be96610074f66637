// Surveillance's page: polls /api/surveillance and lists the flagged seats, newest first.
"use strict";

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
}

function draw(alerts) {
  const body = document.querySelector("#alerts tbody");
  body.textContent = "";
  document.getElementById("none").hidden = alerts.length > 0;
  for (const a of alerts) {
    const row = document.createElement("tr");
    row.dataset.table = a.table;
    row.dataset.seat = a.seat;
    cell(row, a.table, "table");
    cell(row, a.seat, "seat");
    cell(row, a.rounds[0] + "-" + a.rounds[1], "rounds");
    cell(row, a.wagers, "wagers");
    cell(row, a.value.toFixed(2), "rho");
    cell(row, a.p_value.toExponential(1), "p");
    cell(row, a.insurance.with_count + " / " + a.insurance.against_count, "insurance");
    cell(row, a.deviations.with_count + " / " + a.deviations.against_count, "deviations");
    cell(row, a.evidence_rounds.join(", "), "evidence");
    body.appendChild(row);
  }
}

async function poll() {
  try {
    // From the origin: a page opened as http://user:password@host/ cannot fetch a relative URL.
    const response = await fetch(`${location.origin}/api/surveillance`, {cache: "no-store"});
    if (!response.ok) throw new Error("HTTP " + response.status);
    const data = await response.json();
    draw(data.alerts);
    document.getElementById("updated").textContent =
      "updated " + new Date().toLocaleTimeString();
  } catch (error) {
    document.getElementById("updated").textContent = "not reachable: " + error.message;
  }
}

poll();
setInterval(poll, 2000);
