#!/bin/sh
# Builds the gnustep driver: every .m file in this directory, compiled by gcc against GNUstep
# Base (GCC Objective-C runtime, as Debian ships it), into the executable named by $1.
# Usage: /bin/sh Drivers/gnustep/build.sh /abs/path/to/driver
set -e

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTPUT" >&2
    exit 2
fi
out=$1

if ! command -v gnustep-config >/dev/null 2>&1; then
    echo "build.sh: gnustep-config not found; the gnustep driver needs gcc's Objective-C and GNUstep Base:" >&2
    echo "  apt-get install -y --no-install-recommends gobjc libgnustep-base-dev" >&2
    exit 1
fi
if ! command -v gcc >/dev/null 2>&1; then
    echo "build.sh: gcc not found: apt-get install -y --no-install-recommends gobjc libgnustep-base-dev" >&2
    exit 1
fi

here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$(dirname "$out")"

# gnustep-config's flags select GNUstep's headers and native (@try) exceptions. Its -MMD -MP
# would leave dependency files next to the output; they are dropped.
flags=$(gnustep-config --objc-flags | sed -e 's/-MMD//' -e 's/-MP//')
# Built beside the output and moved into place, so that a harness starting the driver never
# finds half of one.
# shellcheck disable=SC2086
# GNUSTEP_DRIVER_CFLAGS adds flags: -fsanitize=address for the sanitizer route (Specs/sanitizers.md).
gcc $flags -Wall ${GNUSTEP_DRIVER_CFLAGS:-} -o "$out.building.$$" "$here"/*.m $(gnustep-config --base-libs)
mv -f "$out.building.$$" "$out"
