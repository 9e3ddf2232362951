#!/usr/bin/env bash
# encode.sh MESSAGE < TEXTPROTO > BINARY: encodes a textproto with the
# project's schema (format/proto); MESSAGE is xla.gpu.GpuExecutableProto,
# xla.HumanReadableAotExecutable, xla.ExecutableAndOptionsProto or
# xla.ifrt.SerializedXlaExecutableMetadata. `decode.sh` is the same in reverse.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
case "$1" in
  xla.gpu.GpuExecutableProto) file=xla/service/gpu/gpu_executable.proto ;;
  xla.HumanReadableAotExecutable) file=xla/util/split_proto/human_readable_aot_executable.proto ;;
  xla.ExecutableAndOptionsProto) file=xla/pjrt/proto/compile_options.proto ;;
  xla.ifrt.SerializedXlaExecutableMetadata) file=xla/python/pjrt_ifrt/executable_metadata.proto ;;
  *) echo "$(basename "$0"): unknown message $1" >&2; exit 2 ;;
esac
verb=encode
[ "$(basename "$0")" = decode.sh ] && verb=decode
cd "$root/format/proto"
exec protoc -I. --"$verb"="$1" "$file"
