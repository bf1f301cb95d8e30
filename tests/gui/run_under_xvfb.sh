#!/bin/sh
# Runs a GUI test under a virtual X server (24-bit colour) with Mesa's software OpenGL. Listing the
# tests (at build time) needs no X server.
for argument in "$@"; do
  case "$argument" in
    --list*) exec "$@" ;;
  esac
done
export LIBGL_ALWAYS_SOFTWARE=1
export QT_QPA_PLATFORM=xcb
exec xvfb-run -a -s "-screen 0 1920x1200x24 -nolisten tcp" "$@"
