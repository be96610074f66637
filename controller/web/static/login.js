// shoectl pit view, login page: the server sends a refused login back here with ?failed=1.
"use strict";

document.getElementById("failed").hidden = !new URLSearchParams(location.search).has("failed");
