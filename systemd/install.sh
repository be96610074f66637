#!/bin/sh
# Install shoectl on a fresh Raspberry Pi OS (or Debian) machine from this checkout:
#
#     sudo apt-get install python3-venv      # once
#     sudo systemd/install.sh                # then edit /etc/shoectl/config.toml
#
# It runs `shoectl install` with the system Python before any virtual environment exists;
# every option of `shoectl install --help` is passed through (e.g. --root DIR).
set -eu
checkout=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-/usr/bin/python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "install.sh: $python is older than 3.11 (Raspberry Pi OS bookworm or later needed)" >&2
    exit 1
}
"$python" -c 'import ensurepip' 2>/dev/null || {
    echo "install.sh: $python cannot make virtual environments: apt-get install python3-venv" >&2
    exit 1
}
exec "$python" -c 'import sys; sys.path.insert(0, sys.argv[1]); from controller.cli import install_command; sys.exit(install_command.main(sys.argv[2:]))' \
    "$checkout" --source "$checkout" --python "$python" "$@"
