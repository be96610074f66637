// The rounds by hour of a day, drawn by the page (no image files): the pit and floor views.
"use strict";

// One bar an hour, 0-23 (UTC), its height the hour's rounds against the busiest hour's.
function hoursChart(byHour) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "hours");
  svg.setAttribute("width", "240");
  svg.setAttribute("height", "44");
  const counts = new Array(24).fill(0);
  for (const [hour, rounds] of Object.entries(byHour || {})) {
    counts[Number(hour.slice(11, 13))] = rounds;
  }
  const most = Math.max(1, ...counts);
  counts.forEach((rounds, hour) => {
    const bar = document.createElementNS(ns, "rect");
    const height = Math.round(32 * rounds / most);
    bar.setAttribute("x", String(hour * 10));
    bar.setAttribute("y", String(32 - height));
    bar.setAttribute("width", "8");
    bar.setAttribute("height", String(height));
    bar.dataset.hour = String(hour);
    bar.dataset.rounds = String(rounds);
    const tip = document.createElementNS(ns, "title");
    tip.textContent = hour + ":00 " + rounds + " rounds";
    bar.appendChild(tip);
    svg.appendChild(bar);
  });
  for (const hour of [0, 6, 12, 18]) {
    const label = document.createElementNS(ns, "text");
    label.setAttribute("x", String(hour * 10));
    label.setAttribute("y", "43");
    label.textContent = String(hour);
    svg.appendChild(label);
  }
  return svg;
}
