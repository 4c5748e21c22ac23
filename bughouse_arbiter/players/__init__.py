"""The seats: native engines, UCI and xboard engines through adapters, the console.

Each player is a trio task the arbiter drives through ``players.base``;
``factory`` builds one from an engine spec, ``process`` owns the subprocess,
``reaper`` what an engine leaves behind (helpers, orphans, escapees).
"""
