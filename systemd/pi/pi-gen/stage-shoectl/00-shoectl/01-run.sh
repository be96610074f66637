#!/bin/bash -e
# pi-gen: install shoectl into the image as `shoectl install --image` does: the venv from
# PyPI's aarch64 wheels, the units, udev rules and system user, and no secret (each card
# makes its journal key and kiosk token at its first boot). The source is the checkout's
# files put in files/shoectl-src by systemd/pi/build_image.sh; it is removed afterwards.
# SHOECTL_KIOSK=1 (the build's config) also installs cage and Chromium and enables the
# console kiosk on the touchscreen.
src="${ROOTFS_DIR}/usr/src/shoectl-src"
rm -rf "${src}"
install -d "${src}"
cp -a files/shoectl-src/. "${src}/"
kiosk=""
if [ "${SHOECTL_KIOSK:-0}" = "1" ]; then
	kiosk="--kiosk"
	on_chroot <<CHROOT
apt-get install -y --no-install-recommends cage chromium
CHROOT
fi
on_chroot <<CHROOT
/usr/src/shoectl-src/systemd/install.sh --image ${kiosk}
CHROOT
rm -rf "${src}"
