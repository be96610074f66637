#!/bin/bash
# Build a Raspberry Pi OS Lite (arm64) SD-card image with shoectl installed, with the
# Raspberry Pi's own image builder, pi-gen (https://github.com/RPi-Distro/pi-gen, its arm64
# branch), on a Debian or Raspberry Pi OS machine with network access:
#
#     git clone --branch arm64 https://github.com/RPi-Distro/pi-gen
#     sudo systemd/pi/build_image.sh --pi-gen pi-gen --ssh-key ~/.ssh/id_ed25519.pub [--kiosk]
#
# The image is pi-gen/deploy/image_<date>-shoectl-table-shoectl.img.xz (docs/pi.md: flash it,
# configure the table, first boot). What goes in: pi-gen's stages 0-2 (Lite), then
# systemd/pi/pi-gen/stage-shoectl: `shoectl install --image` from this checkout's files.
# The image has no secret: each card makes its journal key and kiosk token at its first
# boot; the engineer's account logs in with the SSH key given, never with a password.
#
#     systemd/pi/build_image.sh --stage-only DIR     # only put the stage, with the source, in DIR
#
# (what `make pi-check` runs the stage from, with pi-gen's on_chroot done by systemd-nspawn).
set -eu
checkout=$(cd "$(dirname "$0")/../.." && pwd)
stage_source="$checkout/systemd/pi/pi-gen/stage-shoectl"
pi_gen="" ssh_key="" kiosk=0 stage_only=""
usage() { echo "usage: $0 --pi-gen DIR --ssh-key FILE.pub [--kiosk] | --stage-only DIR" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
		--pi-gen) pi_gen=${2:?--pi-gen needs the pi-gen checkout}; shift 2 ;;
		--ssh-key) ssh_key=${2:?--ssh-key needs a public key file}; shift 2 ;;
		--kiosk) kiosk=1; shift ;;
		--stage-only) stage_only=${2:?--stage-only needs a folder}; shift 2 ;;
		*) echo "build_image.sh: unknown option $1" >&2; usage ;;
	esac
done

# The stage and, in its files/, the checkout's files as they are (tracked and new ones,
# without what git ignores: no venv, no build output, no state).
put_stage() {
	local into=$1/stage-shoectl
	rm -rf "$into"
	cp -a "$stage_source" "$into"
	mkdir -p "$into/00-shoectl/files/shoectl-src"
	(cd "$checkout" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
		tar --null -T - -cf -) | tar -xf - -C "$into/00-shoectl/files/shoectl-src"
	echo "$into"
}

if [ -n "$stage_only" ]; then
	mkdir -p "$stage_only"
	put_stage "$stage_only"
	exit 0
fi
[ -n "$pi_gen" ] && [ -n "$ssh_key" ] || usage
if [ ! -x "$pi_gen/build.sh" ] || [ ! -d "$pi_gen/stage2" ]; then
	echo "build_image.sh: $pi_gen is not a pi-gen checkout (no build.sh, no stage2)" >&2
	exit 2
fi
if ! grep -q '^ssh-' "$ssh_key" 2>/dev/null; then
	echo "build_image.sh: $ssh_key is not an SSH public key (ssh-ed25519 ... or ssh-rsa ...)" >&2
	exit 2
fi
[ "$(id -u)" = 0 ] || { echo "build_image.sh: run as root (pi-gen mounts and chroots)" >&2; exit 2; }

put_stage "$pi_gen" > /dev/null
touch "$pi_gen/stage2/SKIP_IMAGES"  # only this stage's image, not the plain Lite one
# A password nobody knows: the engineer's account logs in with the SSH key alone.
password=$(head -c 24 /dev/urandom | base64)
cat > "$pi_gen/config-shoectl" <<CONFIG
IMG_NAME=shoectl-table
RELEASE=bookworm
TARGET_HOSTNAME=shoectl-table
FIRST_USER_NAME=engineer
FIRST_USER_PASS='$password'
DISABLE_FIRST_BOOT_USER_RENAME=1
ENABLE_SSH=1
PUBKEY_SSH_FIRST_USER='$(head -n 1 "$ssh_key")'
PUBKEY_ONLY_SSH=1
LOCALE_DEFAULT=en_GB.UTF-8
TIMEZONE_DEFAULT=Etc/UTC
STAGE_LIST="stage0 stage1 stage2 stage-shoectl"
export SHOECTL_KIOSK=$kiosk
CONFIG
cd "$pi_gen"
exec ./build.sh -c config-shoectl
