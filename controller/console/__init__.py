"""The dealer's console: the table in words and cards, and the commands a person gives it.

`table_state` builds the public table (`GET /api/table`), `prompts` says what to do next,
`commands` checks and carries out the console's commands on the loop thread, and `hub`
publishes every change (with its sequence number) to the web server's clients. `API.md`
beside this file is the contract.
"""
