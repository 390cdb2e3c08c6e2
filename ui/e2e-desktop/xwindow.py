#!/usr/bin/env python3
"""What a window manager would do, for the desktop test under Xvfb (which
has none): list the top-level windows by name, ask one to close
(WM_DELETE_WINDOW, as a title bar's close button does), press a key in it,
or say its class (WM_CLASS: what a desktop entry's StartupWMClass names).
Uses only the standard library and the X client libraries WebKitGTK already
brings (libX11, libXtst), through ctypes.

    xwindow.py list
    xwindow.py close NAME        (NAME: the window's exact title)
    xwindow.py key NAME KEYSYM   (e.g. Return, Escape)
    xwindow.py class NAME        (prints the instance and class names)

Exits 1 when no window has that name.
"""

import ctypes
import sys

x11 = ctypes.cdll.LoadLibrary("libX11.so.6")
Display = ctypes.c_void_p
Window = ctypes.c_ulong
x11.XOpenDisplay.restype = Display
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
x11.XDefaultRootWindow.restype = Window
x11.XDefaultRootWindow.argtypes = [Display]
x11.XInternAtom.restype = ctypes.c_ulong
x11.XInternAtom.argtypes = [Display, ctypes.c_char_p, ctypes.c_int]
x11.XQueryTree.argtypes = [
    Display,
    Window,
    ctypes.POINTER(Window),
    ctypes.POINTER(Window),
    ctypes.POINTER(ctypes.POINTER(Window)),
    ctypes.POINTER(ctypes.c_uint),
]
x11.XFetchName.argtypes = [Display, Window, ctypes.POINTER(ctypes.c_char_p)]
x11.XFree.argtypes = [ctypes.c_void_p]
x11.XFlush.argtypes = [Display]
x11.XSync.argtypes = [Display, ctypes.c_int]
x11.XSetInputFocus.argtypes = [Display, Window, ctypes.c_int, ctypes.c_ulong]
x11.XStringToKeysym.restype = ctypes.c_ulong
x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
x11.XKeysymToKeycode.restype = ctypes.c_ubyte
x11.XKeysymToKeycode.argtypes = [Display, ctypes.c_ulong]


class ClientMessage(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", Display),
        ("window", Window),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("data", ctypes.c_long * 5),
    ]


class XEvent(ctypes.Union):
    _fields_ = [("xclient", ClientMessage), ("pad", ctypes.c_long * 24)]


class ClassHint(ctypes.Structure):
    _fields_ = [("res_name", ctypes.c_char_p), ("res_class", ctypes.c_char_p)]


x11.XGetClassHint.argtypes = [Display, Window, ctypes.POINTER(ClassHint)]
x11.XSendEvent.argtypes = [Display, Window, ctypes.c_int, ctypes.c_long, ctypes.POINTER(XEvent)]
CLIENT_MESSAGE = 33
REVERT_TO_PARENT = 2


def windows(display, window):
    """Every named window under `window`, depth first, as (id, name)."""
    root, parent = Window(), Window()
    children, count = ctypes.POINTER(Window)(), ctypes.c_uint()
    if not x11.XQueryTree(display, window, ctypes.byref(root), ctypes.byref(parent),
                          ctypes.byref(children), ctypes.byref(count)):
        return
    ids = [children[i] for i in range(count.value)]
    if children:
        x11.XFree(children)
    for child in ids:
        name = ctypes.c_char_p()
        if x11.XFetchName(display, child, ctypes.byref(name)) and name.value:
            yield child, name.value.decode(errors="replace")
        yield from windows(display, child)


def main(argv):
    display = x11.XOpenDisplay(None)
    if not display:
        sys.exit("xwindow: cannot open the display (is DISPLAY set?)")
    found = list(windows(display, x11.XDefaultRootWindow(display)))
    if argv[1] == "list":
        for window, name in found:
            print(hex(window), name)
        return 0
    named = [window for window, name in found if name == argv[2]]
    if not named:
        print(f"no window named {argv[2]!r}", file=sys.stderr)
        return 1
    window = named[0]
    if argv[1] == "close":
        event = XEvent()
        event.xclient.type = CLIENT_MESSAGE
        event.xclient.window = window
        event.xclient.message_type = x11.XInternAtom(display, b"WM_PROTOCOLS", 0)
        event.xclient.format = 32
        event.xclient.data[0] = x11.XInternAtom(display, b"WM_DELETE_WINDOW", 0)
        x11.XSendEvent(display, window, 0, 0, ctypes.byref(event))
    elif argv[1] == "key":
        xtst = ctypes.cdll.LoadLibrary("libXtst.so.6")
        xtst.XTestFakeKeyEvent.argtypes = [Display, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
        x11.XSetInputFocus(display, window, REVERT_TO_PARENT, 0)
        x11.XSync(display, 0)
        code = x11.XKeysymToKeycode(display, x11.XStringToKeysym(argv[3].encode()))
        xtst.XTestFakeKeyEvent(display, code, 1, 0)
        xtst.XTestFakeKeyEvent(display, code, 0, 0)
    elif argv[1] == "class":
        hint = ClassHint()
        if not x11.XGetClassHint(display, window, ctypes.byref(hint)):
            print(f"window {argv[2]!r} has no WM_CLASS", file=sys.stderr)
            return 1
        print(hint.res_name.decode(), hint.res_class.decode())
    else:
        sys.exit(__doc__)
    x11.XFlush(display)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
