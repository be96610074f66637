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

/**
 * Logs the page in and resolves with who it is (the session path's answer).
 *
 * A device opens its page as `URL#token=TOKEN` (the kiosk, a station terminal): the token is
 * taken out of the address at once, kept for this tab only (sessionStorage: a reload, or a
 * session that ended, logs in again with it) and exchanged for a session cookie. The kiosk's
 * launcher (`shoectl console kiosk`) opens it as `URL#code=CODE` instead: a one-time code,
 * traded for the session at once and kept nowhere. When that session ends, or the code is
 * refused (used, or expired before the browser came up), the page closes its window: the
 * kiosk unit starts the launcher again, which brings a fresh code (a window that cannot be
 * closed shows the form). A person gets a form (user, password). The cookie is
 * HttpOnly: this script never holds a session.
 */
async function signIn(sessionPath = "/api/session") {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  const code = fragment.get("code");
  if (given || code) history.replaceState(null, "", location.pathname + location.search);
  if (given) sessionStorage.setItem("shoectl.token", given);
  if (code) {
    sessionStorage.setItem("shoectl.launched", "1");
    await login({ code });
  }
  let session = await fetch(sessionPath, { cache: "no-store" });
  const token = sessionStorage.getItem("shoectl.token");
  if (!session.ok && token) {
    const tried = await login({ token });
    if (tried.status === 401) sessionStorage.removeItem("shoectl.token");
    session = await fetch(sessionPath, { cache: "no-store" });
  }
  if (session.ok) return session.json();
  if (sessionStorage.getItem("shoectl.launched")) window.close();
  return new Promise((resolve) => loginForm(resolve));
}

async function login(credential) {
  const answer = await fetch("/api/login", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(credential),
  });
  const body = await answer.json().catch(() => ({}));
  return { status: answer.status, body, retry: answer.headers.get("Retry-After") };
}

function loginForm(resolve) {
  const form = document.createElement("form");
  form.id = "login-form";
  form.className = "login-overlay";
  form.autocomplete = "off";
  form.innerHTML = '<h2>LOG IN</h2><label>user <input id="login-user" required></label>' +
    '<label>password <input id="login-password" type="password" required></label>' +
    '<button id="login-go" class="go" type="submit">LOG IN</button>' +
    '<span id="login-failed" class="bad" hidden></span>';
  document.body.appendChild(form);
  $("login-user").focus();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const tried = await login({ user: $("login-user").value, password: $("login-password").value });
    $("login-password").value = "";
    if (tried.status === 200) {
      form.remove();
      resolve(tried.body);
      return;
    }
    $("login-failed").textContent = tried.status === 429
      ? `too many tries: wait ${tried.retry} s` : "wrong user or password";
    $("login-failed").hidden = false;
  });
}

/** After a stream error: a page whose session ended logs in again (or shows the form). */
async function checkSession(sessionPath = "/api/session") {
  const session = await fetch(sessionPath, { cache: "no-store" }).catch(() => null);
  if (session && session.status === 401) location.reload();
}
