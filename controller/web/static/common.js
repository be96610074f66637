// Helpers the dealer's console, the player stations and the pit view share.
"use strict";

const RED = new Set(["H", "D"]);

const $ = (id) => document.getElementById(id);

/** Integer cents as the layout shows money: "-1,234.50". */
function money(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}

/** A card code ("TH", "AS") as a span, red for hearts and diamonds, the ten as "10". */
function cardEl(code) {
  const el = document.createElement("span");
  el.className = "card" + (RED.has(code.slice(-1)) ? " red" : "");
  el.textContent = code.replace("T", "10");
  return el;
}
