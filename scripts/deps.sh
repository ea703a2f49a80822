#!/bin/sh
# deps.sh - make sure the build dependencies are installed.
#
# pkg-config says what is missing; apt-get installs it when we are root,
# sudo otherwise; if neither works, print the exact command and fail.
set -e
need=""
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
if command -v pkg-config >/dev/null 2>&1; then
	pkg-config --exists libconfig || need="$need libconfig-dev"
	pkg-config --exists zlib || need="$need zlib1g-dev"
	pkg-config --exists check || need="$need check"
	# json-c reads counter files back (roofline) and checks traces in tests.
	pkg-config --exists json-c || need="$need libjson-c-dev"
	# protobuf-c decodes ONNX models (compiler/onnx.c).
	pkg-config --exists libprotobuf-c || need="$need libprotobuf-c-dev"
else
	need="$need libconfig-dev zlib1g-dev check libjson-c-dev libprotobuf-c-dev"
fi
# protoc-c compiles python3-onnx's onnx.proto at build time.
command -v protoc-c >/dev/null 2>&1 || need="$need protobuf-c-compiler"
# The Python package (python/npusim) and its tests run on the system
# Python with Debian's NumPy, cffi and pytest.
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need="$need python3-numpy"
	/usr/bin/python3 -c 'import cffi' >/dev/null 2>&1 || need="$need python3-cffi"
	/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || need="$need python3-pytest"
	# python3-onnx ships onnx.proto (the schema the importer is built
	# from) and writes test_onnx's model.
	/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1 || need="$need python3-onnx"
else
	need="$need python3 python3-numpy python3-cffi python3-pytest python3-onnx"
fi
# rsvg-convert renders the roofline SVG to PNG in the tests.
command -v rsvg-convert >/dev/null 2>&1 || need="$need librsvg2-bin"
# xmllint checks that the roofline SVG is well-formed XML in the tests.
command -v xmllint >/dev/null 2>&1 || need="$need libxml2-utils"
# clang builds the asan and fuzz variants; they also need clang's sanitizer
# runtime (libclang-rt-<version>-dev on Debian), which a plain clang lacks.
if [ "${NPU_NEED_CLANG:-0}" = 1 ]; then
	if ! command -v clang >/dev/null 2>&1; then
		need="$need clang"
	else
		probe=$(mktemp -d)
		echo 'int main(void) { return 0; }' > "$probe/p.c"
		if ! clang -fsanitize=address,undefined -o "$probe/p" "$probe/p.c" >/dev/null 2>&1; then
			v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
			need="$need libclang-rt-$v-dev"
		fi
		rm -rf "$probe"
	fi
fi
# The cluster test (make test-slurm) starts a real one-node Slurm.
if [ "${NPU_NEED_SLURM:-0}" = 1 ]; then
	PATH=$PATH:/usr/sbin
	command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 &&
		command -v sbatch >/dev/null 2>&1 || need="$need slurm-wlm"
	command -v munged >/dev/null 2>&1 && command -v mungekey >/dev/null 2>&1 ||
		need="$need munge"
fi
[ -z "$need" ] && exit 0
cmd="apt-get install -y$need"
echo "npusim: installing missing build dependencies:$need" >&2
if [ "$(id -u)" = 0 ]; then
	apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $cmd >/dev/null && exit 0
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo apt-get update -qq >/dev/null && sudo DEBIAN_FRONTEND=noninteractive $cmd >/dev/null && exit 0
fi
echo "npusim: could not install dependencies automatically." >&2
echo "npusim: run as root:  apt-get update && $cmd" >&2
exit 1
