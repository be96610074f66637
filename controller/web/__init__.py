"""The table's web server: the dealer's console and the supervisor's pit view.

Served by `shoectl run` in a thread of its own (uvicorn running a Starlette application); the
table's state is only ever read on the loop thread and handed over by the console hub.
"""
