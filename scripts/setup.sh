# scripts/setup.sh - shared set-up of quickstart and check: install, configure, build
#
# Source it from bash (it is not a program), then call imprint_setup: it
# installs the missing Debian packages, then configures and builds imprint
# at the top of the source tree and leaves the working directory there.
# Environment:
#   IMPRINT_CONFIGURE_FLAGS  extra arguments for ./configure, split on blanks
#                            (e.g. "--enable-asan --enable-werror")
# shellcheck shell=bash

IMPRINT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian packages needed to build, test and run imprint.
IMPRINT_DEPS=(
	build-essential autoconf automake libtool pkg-config
	libext2fs-dev comerr-dev libgsl-dev libblkid-dev libfdisk-dev libjson-c-dev libcmocka-dev
	zlib1g-dev libisal-dev libzstd-dev libxxhash-dev libmagic-dev libxml2-dev
	e2fsprogs wamerican file time python3 strace xfsprogs btrfs-progs
	sox mpg123 ffmpeg attr acl
	netpbm pngcheck libjpeg-turbo-progs
	qpdf poppler-utils unzip libarchive-tools
	qemu-utils fdisk
	exfatprogs exfat-fuse
	libjs-chart.js chromium
	bash-completion parallel
	postmark fio restic
	glusterfs-server openmpi-bin
)

# What scripts/package needs besides: it installs them (and the build
# dependencies of debian/control) when it runs.
IMPRINT_PACKAGE_DEPS=(dpkg-dev debhelper fakeroot lintian)

imprint_say()
{
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

imprint_die()
{
	imprint_say "error: $*"
	exit 1
}

# Install the packages of IMPRINT_DEPS that are not installed yet, and only
# those; apt-get update runs once, and only when something is missing.
imprint_install_deps()
{
	local pkg status missing=()

	if ! command -v dpkg-query >/dev/null 2>&1; then
		imprint_say "not a Debian-like system: install by hand: ${IMPRINT_DEPS[*]}"
		return 0
	fi
	for pkg in "${IMPRINT_DEPS[@]}"; do
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || missing+=("$pkg")
	done
	[[ ${#missing[@]} -eq 0 ]] && return 0

	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 ||
			imprint_die "missing packages ${missing[*]}, and not root and no sudo to install them"
		sudo=(sudo)
	fi
	imprint_say "installing ${missing[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null ||
		imprint_say "warning: apt-get update failed; trying the install anyway"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null ||
		imprint_die "apt-get install ${missing[*]} failed"
}

# Whether config.status was made with exactly the arguments in "$@".
imprint_configured_with()
{
	local config
	local -a have

	[[ -x config.status ]] || return 1
	config=$(./config.status --config 2>/dev/null) || return 1
	# config.status prints its arguments shell-quoted: eval splits them back.
	eval "have=($config)" 2>/dev/null || return 1
	[[ ${#have[@]} -eq $# ]] || return 1
	[[ $# -eq 0 || "${have[*]}" == "$*" ]]
}

# Generate, configure and build, each step only when its output is missing
# or older than its input.  Leaves the working directory at the top.
imprint_build()
{
	local flags=()

	cd "$IMPRINT_TOP" || imprint_die "cannot cd to $IMPRINT_TOP"
	# Word splitting is the point: several flags in one variable.
	# shellcheck disable=SC2206
	flags=(${IMPRINT_CONFIGURE_FLAGS:-})

	if [[ ! -x configure || configure.ac -nt configure ]]; then
		imprint_say "autoreconf -fi"
		autoreconf -fi || imprint_die "autoreconf failed"
	fi
	if [[ -f Makefile ]] && ! imprint_configured_with "${flags[@]}"; then
		# Objects do not depend on the flags: new flags need a clean build.
		imprint_say "configure flags changed: make clean"
		make clean >/dev/null 2>&1 || true
		rm -f Makefile
	fi
	if [[ ! -f Makefile || configure -nt Makefile ]]; then
		imprint_say "./configure ${flags[*]}"
		./configure "${flags[@]}" || imprint_die "configure failed (see config.log)"
	fi
	make -j"$(nproc)" || imprint_die "build failed"
}

imprint_setup()
{
	imprint_install_deps
	imprint_build
}
