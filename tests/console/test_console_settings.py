"""`[console]`: the hosts a request may name, the rates, the pit's deprecated credential."""

from __future__ import annotations

import pytest

from controller.rules.errors import ConfigError
from controller.web.settings import console_settings_from_mapping


def test_hosts_default_to_the_listen_hosts_and_loopback() -> None:
    settings = console_settings_from_mapping({"listen": "10.0.0.7:8420",
                                              "pit_listen": "0.0.0.0:8421"})
    assert settings.allowed_hosts() == frozenset({"10.0.0.7", "0.0.0.0", "localhost",
                                                  "127.0.0.1", "::1"})
    more = console_settings_from_mapping({"hosts": ["Table7.casino.lan"]})
    assert "table7.casino.lan" in more.allowed_hosts()
    assert (more.commands_per_s, more.reads_per_s) == (20, 50)


@pytest.mark.parametrize(("section", "says"), [
    ({"hosts": "table7"}, "[console] hosts: expected a list"),
    ({"hosts": ["table7:8420"]}, "[console] hosts: expected a list"),
    ({"commands_per_s": 0}, "[console] commands_per_s"),
    ({"pit_credential": "plain"}, "[console] pit_credential"),
    ({"pit_users": "x"}, "[console] pit_users: unknown key"),
])
def test_a_bad_key_is_one_line_naming_it(section: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError) as refused:
        console_settings_from_mapping(section)
    assert says in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_pit_view_no_longer_needs_the_deprecated_credential() -> None:
    settings = console_settings_from_mapping({"pit_listen": "127.0.0.1:8421"})
    assert settings.pit_credential == ""
