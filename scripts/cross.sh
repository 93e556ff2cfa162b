#!/usr/bin/env bash
# Pi builds, tested under emulation (docs/raspberry-pi.md): cross-builds `affect` for
# aarch64-unknown-linux-gnu (the JIT) and armv7-unknown-linux-gnueabihf (the interpreter:
# Cranelift has no 32-bit ARM backend), lints armv7 (whose code differs), and runs under qemu-user:
#
#   1. the device drivers' unit tests (runtime `devices::`, `hardware::`);
#   2. the navigator and waiter examples in their simulated worlds (seed 3): the traces must be
#      byte-identical to x86_64's, with each engine;
#   3. `affect run --hardware` of the navigator through rppal against the I2C shim built for
#      the target (shim/i2c_shim.c): it reaches its first target and stops the motors.
#
# Debian's cross compilers and qemu-user are installed when missing (apt-get); the rustup
# targets are added when missing. When either cannot be had, this says that the cross part did
# not run and why, and exits 2 (never counted as passed).
#
# Usage: scripts/cross.sh [TARGET...]   (default: both). Environment: CROSS_KEEP=1 keeps the
# targets' build directories (each is removed once its checks are done otherwise: they are large).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Where cargo puts what it builds (CARGO_TARGET_DIR or a config's build.target-dir count).
target_dir=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')

targets=("$@")
((${#targets[@]})) || targets=(aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf)

did_not_run() {
  printf 'did not run: the Pi cross builds (%s), because %s\n' "${targets[*]}" "$1" >&2
  exit 2
}

# --- tools, idempotently
need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v arm-linux-gnueabihf-gcc >/dev/null || need+=(gcc-arm-linux-gnueabihf)
{ command -v qemu-aarch64 >/dev/null && command -v qemu-arm >/dev/null; } || need+=(qemu-user)
if ((${#need[@]})); then
  command -v apt-get >/dev/null || did_not_run "${need[*]} are missing and there is no apt-get"
  sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo -n)
  { "${sudo[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}" >/dev/null; } ||
    did_not_run "apt-get could not install ${need[*]}"
fi
for t in "${targets[@]}"; do
  if ! rustup target list --installed 2>/dev/null | grep -qx "$t"; then
    rustup target add "$t" >/dev/null 2>&1 || did_not_run "rustup could not add the target $t (no network?)"
  fi
done

failed=()
check() {
  local name="$1"
  shift
  if "$@"; then
    printf 'ok: %s\n' "$name"
  else
    printf 'FAILED: %s\n' "$name" >&2
    failed+=("$name")
  fi
}

qemu_of() {
  case "$1" in
    aarch64-*) echo "qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
    armv7-*) echo "qemu-arm -L /usr/arm-linux-gnueabihf" ;;
  esac
}
cc_of() {
  case "$1" in
    aarch64-*) echo aarch64-linux-gnu-gcc ;;
    armv7-*) echo arm-linux-gnueabihf-gcc ;;
  esac
}

# A target's build directory (several GB) goes as soon as its checks are done, before the next
# target builds: CI once ran out of disk building the second (CROSS_KEEP=1 keeps them).
drop_target() {
  [[ ${CROSS_KEEP:-0} == 1 ]] || rm -rf "${target_dir:?}/$1"
}

work="$target_dir/cross-check"
rm -rf "$work"
mkdir -p "$work"

# --- the reference: x86_64 (this machine), both engines
cargo build -q --locked --bin affect
host="$target_dir/debug/affect"
run_examples() { # OUTDIR RUNNER... : navigator and waiter traces, every engine
  local out="$1"
  shift
  mkdir -p "$out"
  rm -rf "$out/cache"
  for ex in navigator waiter; do
    # The second `jit` run loads its code from the code cache the first one filled.
    for run in jit:jit jit:jit-cached tiered:tiered interp:interp; do
      local engine=${run%%:*} name=${run#*:}
      AFFECT_CODE_CACHE="$out/cache" "$@" run "examples/$ex.affect" --seed 3 --no-persist \
        --quiet --engine "$engine" \
        --trace "$out/$ex.$name.jsonl" 2>"$out/$ex.$name.stderr" ||
        { cat "$out/$ex.$name.stderr" >&2; return 1; }
    done
  done
}
run_examples "$work/x86_64" "$host"
for ex in navigator waiter; do
  check "x86_64: $ex, JIT and interpreter traces identical" \
    cmp "$work/x86_64/$ex.jit.jsonl" "$work/x86_64/$ex.interp.jsonl"
done

for t in "${targets[@]}"; do
  start=$SECONDS
  read -r -a qemu <<<"$(qemu_of "$t")"
  printf '\n--- %s\n' "$t"
  # Without the `net` feature: Zenoh for two more targets would take most of CI's budget
  # for this step, and none of the checks below reach the network code (docs/raspberry-pi.md
  # says how to build the Pi binary with it).
  # Lints only where the code differs from x86_64's (which the main clippy run covers): the one
  # target_arch switch is JIT or not, so aarch64 compiles x86_64's code and armv7 the rest.
  if [[ $t != aarch64-* ]]; then
    check "$t: clippy" cargo clippy -q --locked --target "$t" -p affect-runtime -p affect --no-default-features --lib --bins -- -D warnings
  fi
  if ! cargo build -q --locked --target "$t" --no-default-features --bin affect; then
    failed+=("$t: build")
    drop_target "$t"
    continue
  fi
  bin="$target_dir/$t/debug/affect"

  # 1. the drivers' unit tests, run through qemu (the target's runner in .cargo/config.toml)
  check "$t: device tests under qemu" \
    cargo test -q --locked --target "$t" -p affect-runtime --lib -- devices:: hardware::

  # 2. the examples' traces, byte for byte against x86_64's
  if run_examples "$work/$t" "${qemu[@]}" "$bin"; then
    for ex in navigator waiter; do
      check "$t: $ex (interp) trace identical to x86_64's" \
        cmp "$work/x86_64/$ex.interp.jsonl" "$work/$t/$ex.interp.jsonl"
      if [[ $t == armv7-* ]]; then
        # No JIT on 32-bit ARM: the run says so in its first trace line (a `log` event),
        # then the interpreter's trace follows, identical to x86_64's.
        check "$t: $ex (jit) falls back to the interpreter and says so" \
          grep -q '"ev":"log".*running the interpreter' <(head -n 1 "$work/$t/$ex.jit.jsonl")
        check "$t: $ex (jit, run by the interpreter) trace identical to x86_64's" \
          cmp "$work/x86_64/$ex.jit.jsonl" <(tail -n +2 "$work/$t/$ex.jit.jsonl")
      else
        check "$t: $ex (jit) trace identical to x86_64's" \
          cmp "$work/x86_64/$ex.jit.jsonl" "$work/$t/$ex.jit.jsonl"
        check "$t: $ex (jit, code from the code cache) trace identical to x86_64's" \
          cmp "$work/x86_64/$ex.jit.jsonl" "$work/$t/$ex.jit-cached.jsonl"
        check "$t: the code cache holds compiled code" compgen -G "$work/$t/cache/*.code"
      fi
      check "$t: $ex (tiered) trace identical to x86_64's" \
        cmp "$work/x86_64/$ex.interp.jsonl" "$work/$t/$ex.tiered.jsonl"
    done
  else
    failed+=("$t: examples under qemu")
  fi

  # 3. the hardware path through rppal against the shim built for the target
  shim="$work/$t/libaffect_i2c_shim.so"
  if "$(cc_of "$t")" -shared -fPIC -O2 -Wall -Werror -o "$shim" shim/i2c_shim.c shim/pi_shim.c -ldl -lm; then
    hw="$work/$t/hardware"
    mkdir -p "$hw"
    "${qemu[@]}" -E "LD_PRELOAD=$shim" -E "AFFECT_SHIM_STATE=$hw/bus.state" \
      -E "AFFECT_SHIM_LOG=$hw/bus.log" -E AFFECT_SHIM_A0=1.0 -E AFFECT_SHIM_A1=0.256 \
      "$bin" run examples/navigator.affect --hardware --sim-device place \
      --sim-device loud_noise --watchdog-ms 0 --no-persist --quiet --ticks 40 \
      --trace "$hw/trace.jsonl" 2>"$hw/stderr" || cat "$hw/stderr" >&2
    check "$t: --hardware through rppal and the shim reaches C (the itinerary K by C H X)" \
      grep -q '"name":"place","value":"C"' "$hw/trace.jsonl"
    check "$t: the ADS1115 was read (light: A0 config 01c383, code 1f40)" \
      grep -q ' W 48 01c383$' "$hw/bus.log"
    # The Romi's motor speeds (state offset 64 + 6, two i16) are 0 after the run.
    check "$t: the emulated Romi's motors stopped at the end" \
      test "$(od -An -t d2 -j 70 -N 4 "$hw/bus.state" | tr -s ' ')" = " 0 0"
  else
    failed+=("$t: shim build")
  fi
  printf '%s took %d s\n' "$t" $((SECONDS - start))
  drop_target "$t"
done

if ((${#failed[@]})); then
  printf '\nFAILED (cross): %s\n' "${failed[*]}" >&2
  exit 1
fi
printf '\nthe Pi cross builds passed: %s\n' "${targets[*]}"
