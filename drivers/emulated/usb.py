"""A pyusb backend (`usb.backend.IBackend`) whose one device carries bytes over bulk endpoints.

`usb.core.find(idVendor=..., backend=EmulatedUsbBackend(device))` finds the emulated device,
and the real USB transport (`drivers.usb`) reads and writes it exactly as it would a board on
libusb: configuration, interface claim, string descriptors (serial number) over control
transfers, bulk OUT 0x01 and bulk IN 0x81 with 64-byte packets, timeouts as
`USBTimeoutError`, and `USBError(errno=ENODEV)` once the device is unplugged.

Device side (used by the emulators):
    `EmulatedUsbDevice.on_receive` is called with every block the host writes;
    `send(data)` queues bytes for the host's next bulk reads.

Stimulus:
    `unplug()` (the device vanishes: enumeration no longer lists it and every transfer on an
    open handle fails with ENODEV), `replug()` (it comes back with a new address).

Observation:
    `plugged`, `host_writes` (count of bulk OUT transfers), `address`.
"""

from __future__ import annotations

import array
import errno
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import usb.backend
import usb.core

BULK_OUT: Final = 0x01
BULK_IN: Final = 0x81
PACKET: Final = 64
_STRING_INDEXES: Final = {1: "manufacturer", 2: "product", 3: "serial_number"}


@dataclass
class _Descriptor:
    """Attributes pyusb copies out of a backend's descriptor objects."""

    fields: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None


class EmulatedUsbDevice:
    """One emulated USB device: descriptors, and a byte pipe in each direction.

    Args:
        vid: Vendor id.
        pid: Product id.
        serial_number: The serial number string descriptor.
        product: The product string descriptor.
        manufacturer: The manufacturer string descriptor.
    """

    def __init__(self, vid: int, pid: int, serial_number: str = "EMU0001",
                 product: str = "shoectl emulated device",
                 manufacturer: str = "shoectl") -> None:
        self.vid = vid
        self.pid = pid
        self.serial_number = serial_number
        self.product = product
        self.manufacturer = manufacturer
        self.on_receive: Callable[[bytes], None] = lambda data: None
        self.address = 1
        self.plugged = True
        self.host_writes = 0
        self.claimed_by: object | None = None  # the handle holding interface 0, as libusb
        self._to_host = bytearray()
        self._ready = threading.Condition()

    def send(self, data: bytes) -> None:
        """Queue bytes for the host (device -> host, bulk IN); dropped while unplugged."""
        with self._ready:
            if self.plugged:
                self._to_host += data
                self._ready.notify_all()

    def unplug(self) -> None:
        """Disconnect: the device leaves enumeration and open handles fail with ENODEV."""
        with self._ready:
            self.plugged = False
            self._to_host.clear()
            self._ready.notify_all()

    def replug(self) -> None:
        """Connect again, at a new address, with empty endpoint buffers (no claim held)."""
        with self._ready:
            self.plugged = True
            self.address += 1
            self.claimed_by = None
            self._to_host.clear()

    def read_for_host(self, size: int, timeout_s: float, address: int) -> bytes:
        """Wait up to `timeout_s` for bytes for the host; return at most `size` of them."""
        with self._ready:
            self._ready.wait_for(lambda: bool(self._to_host) or not self._alive(address),
                                 timeout_s)
            self.check_alive(address)
            if not self._to_host:
                raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
            data = bytes(self._to_host[:size])
            del self._to_host[:size]
            return data

    def write_from_host(self, data: bytes, address: int) -> None:
        """Deliver a bulk OUT transfer to the device side."""
        with self._ready:
            self.check_alive(address)
            self.host_writes += 1
        self.on_receive(data)

    def string(self, index: int) -> str | None:
        """The string descriptor with this index."""
        name = _STRING_INDEXES.get(index)
        return None if name is None else str(getattr(self, name))

    def _alive(self, address: int) -> bool:
        return self.plugged and address == self.address

    def check_alive(self, address: int) -> None:
        """Raise ENODEV unless the device is plugged in at `address`."""
        if not self._alive(address):
            raise usb.core.USBError("No such device (it may have been disconnected)", -4,
                                    errno.ENODEV)


class _Handle:
    def __init__(self, device: EmulatedUsbDevice) -> None:
        self.device = device
        self.address = device.address


class EmulatedUsbBackend(usb.backend.IBackend):
    """A pyusb backend that enumerates the given emulated devices."""

    def __init__(self, *devices: EmulatedUsbDevice) -> None:
        super().__init__()
        self.devices = list(devices)
        self._configuration: dict[int, int] = {}

    def enumerate_devices(self) -> list[EmulatedUsbDevice]:
        """The devices currently plugged in."""
        return [device for device in self.devices if device.plugged]

    def get_device_descriptor(self, dev: EmulatedUsbDevice) -> _Descriptor:
        """The standard device descriptor."""
        return _Descriptor({
            "bLength": 18, "bDescriptorType": 1, "bcdUSB": 0x0200, "bDeviceClass": 0,
            "bDeviceSubClass": 0, "bDeviceProtocol": 0, "bMaxPacketSize0": PACKET,
            "idVendor": dev.vid, "idProduct": dev.pid, "bcdDevice": 0x0100,
            "iManufacturer": 1, "iProduct": 2, "iSerialNumber": 3, "bNumConfigurations": 1,
            "address": dev.address, "bus": 1, "port_number": 1, "port_numbers": (1,),
            "speed": 2,
        })

    def get_configuration_descriptor(self, dev: EmulatedUsbDevice, config: int) -> _Descriptor:
        """One configuration with one interface."""
        return _Descriptor({
            "bLength": 9, "bDescriptorType": 2, "wTotalLength": 32, "bNumInterfaces": 1,
            "bConfigurationValue": 1, "iConfiguration": 0, "bmAttributes": 0x80,
            "bMaxPower": 50, "extra_descriptors": [],
        })

    def get_interface_descriptor(self, dev: EmulatedUsbDevice, intf: int, alt: int,
                                 config: int) -> _Descriptor:
        """A vendor-specific interface with two bulk endpoints."""
        if intf != 0 or alt != 0:
            raise IndexError("no such interface")
        return _Descriptor({
            "bLength": 9, "bDescriptorType": 4, "bInterfaceNumber": 0, "bAlternateSetting": 0,
            "bNumEndpoints": 2, "bInterfaceClass": 0xFF, "bInterfaceSubClass": 0,
            "bInterfaceProtocol": 0, "iInterface": 0, "extra_descriptors": [],
        })

    def get_endpoint_descriptor(self, dev: EmulatedUsbDevice, ep: int, intf: int, alt: int,
                                config: int) -> _Descriptor:
        """Endpoint 0 is bulk OUT 0x01, endpoint 1 bulk IN 0x81."""
        if ep not in (0, 1):
            raise IndexError("no such endpoint")
        return _Descriptor({
            "bLength": 7, "bDescriptorType": 5, "bEndpointAddress": (BULK_OUT, BULK_IN)[ep],
            "bmAttributes": 2, "wMaxPacketSize": PACKET, "bInterval": 0, "bRefresh": 0,
            "bSynchAddress": 0, "extra_descriptors": [],
        })

    def open_device(self, dev: EmulatedUsbDevice) -> _Handle:
        """Open a handle bound to the device's current address."""
        if not dev.plugged:
            raise usb.core.USBError("No such device", -4, errno.ENODEV)
        return _Handle(dev)

    def close_device(self, dev_handle: _Handle) -> None:
        """Release the handle's claim, if it holds one."""
        self.release_interface(dev_handle, 0)

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        """Remember the configuration."""
        self._configuration[id(dev_handle)] = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        """The configuration set (1 by default)."""
        return self._configuration.get(id(dev_handle), 1)

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        """Only alternate setting 0 exists."""

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        """Claim the interface for this handle; another handle's claim is busy (EBUSY)."""
        device = dev_handle.device
        if device.claimed_by not in (None, dev_handle):
            raise usb.core.USBError("Resource busy", -6, errno.EBUSY)
        device.claimed_by = dev_handle

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        """Release this handle's claim."""
        if dev_handle.device.claimed_by is dev_handle:
            dev_handle.device.claimed_by = None

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        """No kernel driver binds a vendor-specific interface."""
        return False

    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int],
                   timeout: int) -> int:
        """Hand the block to the device."""
        dev_handle.device.write_from_host(bytes(data), dev_handle.address)
        return len(data)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int],
                  timeout: int) -> int:
        """Fill `buff` with what the device sent, waiting up to `timeout` ms."""
        data = dev_handle.device.read_for_host(len(buff), max(timeout, 1) / 1000,
                                               dev_handle.address)
        buff[: len(data)] = array.array(buff.typecode, data)
        return len(data)

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int,  # noqa: N803
                      bRequest: int, wValue: int, wIndex: int,  # noqa: N803
                      data: array.array[int], timeout: int) -> int:
        """Answer GET_DESCRIPTOR for string descriptors (the serial number and names)."""
        device = dev_handle.device
        device.check_alive(dev_handle.address)
        kind, index = wValue >> 8, wValue & 0xFF
        if bRequest != 6 or kind != 3:
            raise usb.core.USBError("Pipe error (request not supported)", -9, errno.EPIPE)
        if index == 0:
            payload = bytes([4, 3, 0x09, 0x04])  # LANGID en-US
        else:
            text = (device.string(index) or "").encode("utf-16-le")
            payload = bytes([2 + len(text), 3]) + text
        size = min(len(payload), len(data))
        data[:size] = array.array(data.typecode, payload[:size])
        return size
