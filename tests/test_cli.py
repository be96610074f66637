from controller.cli import shoectl


def test_help_lists_commands(capsys) -> None:
    assert shoectl.main(["--help"]) == 0
    assert "usage: shoectl COMMAND" in capsys.readouterr().out


def test_version_names_the_installed_release(capsys) -> None:
    import importlib.metadata

    assert shoectl.main(["--version"]) == 0
    assert capsys.readouterr().out == f"shoectl {importlib.metadata.version('shoectl')}\n"


def test_unknown_command_is_refused(capsys) -> None:
    assert shoectl.main(["no-such-command"]) == 2
    assert "unknown command 'no-such-command'" in capsys.readouterr().err


def test_every_registered_command_module_has_main() -> None:
    import importlib

    for name, (module, _summary) in shoectl.COMMANDS.items():
        assert callable(importlib.import_module(module).main), name
