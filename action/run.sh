#!/usr/bin/env bash
# The script of the trailgate GitHub Action (action.yml): install trailgate, run `trailgate
# check` with the reports asked for, and say where they are. Every input comes from an
# environment variable, so the script runs the same on a laptop as on a runner, and
# python/tests/test_action.py runs it on a bundled fixture.
#
#   TRAILGATE_SUITE        the suite file (default trailgate.yaml)
#   TRAILGATE_ANNOTATIONS  true: `--format github` on the log (annotations, then the text
#                          report); false: the text report
#   TRAILGATE_SUMMARY      true: the Markdown summary is appended to GITHUB_STEP_SUMMARY
#   TRAILGATE_JUNIT        a file for the JUnit report (default trailgate-junit.xml), or empty
#   TRAILGATE_MARKDOWN     a file for the Markdown report, or empty
#   TRAILGATE_JSON         a file for the JSON report (default trailgate-report.json), or empty
#   TRAILGATE_HTML         a file for the HTML report, or empty (the default)
#   TRAILGATE_BASELINE     a baseline JSON report for gates on the baseline (`--baseline`),
#                          or empty
#   TRAILGATE_XFAIL        a file naming the tests expected to fail (`--xfail`), or empty
#   TRAILGATE_ARGS         more arguments for `trailgate check`, split at spaces
#   TRAILGATE_INSTALL      auto (the default: release when the action runs at the tag of its
#                          own version, `uses: OWNER/trailgate@v0.1.0`, else cargo), release
#                          (the binary of the action's own release, checked against the
#                          release's SHA256SUMS), cargo (`cargo install --locked` from the
#                          action's own source), pip (TRAILGATE_PACKAGE) or none (on PATH)
#   TRAILGATE_PACKAGE      what `pip` installs: a pinned version (`trailgate==0.1.0`) or a
#                          wheel file; never a bare name (docs/ci.md#the-trailgate-action)
#
# It writes `exit-code` and `reports` (the report files, one a line) to GITHUB_OUTPUT when
# that is set, and exits with trailgate's exit code: 0 passed, 1 a gate failed, 2 invalid.
set -euo pipefail

suite="${TRAILGATE_SUITE:-trailgate.yaml}"
annotations="${TRAILGATE_ANNOTATIONS:-true}"
summary="${TRAILGATE_SUMMARY:-true}"
junit="${TRAILGATE_JUNIT-trailgate-junit.xml}"
markdown="${TRAILGATE_MARKDOWN:-}"
json="${TRAILGATE_JSON-trailgate-report.json}"
html="${TRAILGATE_HTML:-}"
baseline="${TRAILGATE_BASELINE:-}"
xfail="${TRAILGATE_XFAIL:-}"
install="${TRAILGATE_INSTALL:-auto}"
package="${TRAILGATE_PACKAGE:-}"
scratch="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

fail() {
    echo "trailgate action: $*" >&2
    exit 2
}

is_bool() {
    [ "$1" = true ] || [ "$1" = false ] || fail "\`$2\` is \`$1\`; write true or false"
}
is_bool "$annotations" annotations
is_bool "$summary" summary

args=(check "$suite")
reports=()
# `reports` lists the report files in GITHUB_OUTPUT one a line: a path with a line break
# would end the list early and could write an output of its own (`exit-code=0`), so it
# stops the step, before anything is installed, run or written.
add_report() {
    local path
    path="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")" || true
    case "$2$path" in
    *$'\n'* | *$'\r'*)
        fail "the \`$1\` report's path has a line break; \`reports\` lists the report files one a line, so name one without"
        ;;
    esac
    args+=(--format "$1" --output "$2")
    reports+=("$path")
}
[ -z "$junit" ] || add_report junit "$junit"
[ -z "$markdown" ] || add_report markdown "$markdown"
[ -z "$json" ] || add_report json "$json"
[ -z "$html" ] || add_report html "$html"

# A folder whose `bin/` goes on PATH for this step and, on a runner, for the later ones.
use_bin() {
    export PATH="$1:$PATH"
    if [ -n "${GITHUB_PATH:-}" ]; then
        echo "$1" >>"$GITHUB_PATH"
    fi
}

# The action's checkout is `.../_actions/OWNER/REPO/REF`, its source at the ref the workflow
# named; its version is the workspace's, the first `version = ` of its Cargo.toml.
action_dir="$(cd "$here/.." && pwd)"
action_ref="$(basename "$action_dir")"
action_repo="$(basename "$(dirname "$(dirname "$action_dir")")")/$(basename "$(dirname "$action_dir")")"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_dir/Cargo.toml" | head -n 1)"

if [ "$install" = auto ]; then
    # A release's binaries were built from the source at its tag, so they stand for the
    # action only at that tag; at any other ref (a branch, a commit) the action builds what
    # it holds.
    if [ -n "$version" ] && [ "$action_ref" = "v$version" ]; then
        install=release
    else
        install=cargo
    fi
fi

# The release's archive for this machine, named by Rust's target (docs/releasing.md).
release_target() {
    local os="${RUNNER_OS:-$(uname -s)}" arch="${RUNNER_ARCH:-$(uname -m)}"
    case "$arch" in
    X64 | x86_64 | amd64) arch=x86_64 ;;
    ARM64 | arm64 | aarch64) arch=aarch64 ;;
    *) fail "no release binary for the processor \`$arch\`; use \`install: cargo\`" ;;
    esac
    case "$os" in
    Linux) echo "trailgate-$arch-unknown-linux-musl.tar.gz" ;;
    macOS | Darwin) echo "trailgate-$arch-apple-darwin.tar.gz" ;;
    Windows | MINGW* | MSYS* | CYGWIN*) echo "trailgate-$arch-pc-windows-msvc.zip" ;;
    *) fail "no release binary for the system \`$os\`; use \`install: cargo\`" ;;
    esac
}

download() {
    curl --fail --silent --show-error --location --retry 3 --output "$2" "$1" ||
        fail "cannot download $1"
}

sha256() {
    if command -v sha256sum >/dev/null; then
        sha256sum "$1" | cut -d ' ' -f 1
    else
        shasum -a 256 "$1" | cut -d ' ' -f 1
    fi
}

case "$install" in
release)
    [ -n "$version" ] || fail "cannot read the action's version from $action_dir/Cargo.toml"
    archive="$(release_target)"
    url="${GITHUB_SERVER_URL:-https://github.com}/$action_repo/releases/download/v$version"
    release_dir="$scratch/trailgate-release"
    rm -rf "$release_dir"
    mkdir -p "$release_dir/bin"
    download "$url/SHA256SUMS" "$release_dir/SHA256SUMS"
    download "$url/$archive" "$release_dir/$archive"
    # Nothing is unpacked, let alone run, before its bytes are the ones the release lists.
    expected="$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1 }' "$release_dir/SHA256SUMS")"
    [ -n "$expected" ] || fail "the release's SHA256SUMS lists no \`$archive\`"
    actual="$(sha256 "$release_dir/$archive")"
    [ "$actual" = "$expected" ] ||
        fail "\`$archive\` has SHA-256 $actual, but the release's SHA256SUMS says $expected"
    case "$archive" in
    *.zip) unzip -q -o "$release_dir/$archive" -d "$release_dir/bin" ;;
    *) tar -xzf "$release_dir/$archive" -C "$release_dir/bin" ;;
    esac
    use_bin "$release_dir/bin"
    ;;
pip)
    # A bare name installs whatever the registry serves under it today, which need not be
    # this project's code: only a pinned version or a wheel file is installed.
    case "$package" in
    "") fail "\`install: pip\` needs \`package\`: a pinned version (\`trailgate==0.1.0\`) or a wheel file" ;;
    *.whl) [ -f "$package" ] || fail "\`package\` is \`$package\`, and no such wheel file exists" ;;
    *==*) ;;
    *) fail "\`package\` is \`$package\`; pin a version (\`$package==0.1.0\`) or name a wheel file" ;;
    esac
    # A virtual environment of its own: the runner's Python refuses `pip install` into
    # the system (PEP 668), and the job's own environment stays as it was.
    venv="$scratch/trailgate-venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$package"
    use_bin "$venv/bin"
    ;;
cargo)
    cargo install --locked --root "$scratch/trailgate-cargo" --path "$action_dir/crates/trailgate-cli"
    use_bin "$scratch/trailgate-cargo/bin"
    ;;
none) ;;
*) fail "\`install\` is \`$install\`; write auto, release, cargo, pip or none" ;;
esac
command -v trailgate >/dev/null || fail "no \`trailgate\` command on PATH after \`install: $install\`"

if [ -n "$baseline" ]; then
    # A trailgate older than `--baseline` refuses the option (exit 2) rather than ignore it.
    args+=(--baseline "$baseline")
fi
if [ -n "$xfail" ]; then
    args+=(--xfail "$xfail")
fi

step_summary="${GITHUB_STEP_SUMMARY:-}"
summary_file=""
if [ "$annotations" = true ]; then
    args+=(--format github)
else
    args+=(--format text)
fi
if [ "$summary" = true ] && [ -n "$step_summary" ] && [ "$annotations" = false ]; then
    # Without `--format github`, the summary is the Markdown report, appended afterwards.
    summary_file="$(mktemp "$scratch/trailgate-summary.XXXXXX")"
    args+=(--format markdown --output "$summary_file")
fi

if [ -n "${TRAILGATE_ARGS:-}" ]; then
    read -r -a extra <<<"$TRAILGATE_ARGS"
    args+=(${extra[@]+"${extra[@]}"})
fi

code=0
if [ "$summary" = true ]; then
    trailgate "${args[@]}" || code=$?
else
    # `--format github` appends the summary wherever GITHUB_STEP_SUMMARY points.
    env -u GITHUB_STEP_SUMMARY trailgate "${args[@]}" || code=$?
fi

if [ -n "$summary_file" ]; then
    if [ -s "$summary_file" ]; then
        cat "$summary_file" >>"$step_summary"
    fi
    rm -f "$summary_file"
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "exit-code=$code"
        echo "reports<<TRAILGATE_REPORTS"
        # The `+` form: an empty array is an unbound variable to the bash 3 of macOS runners.
        for report in ${reports[@]+"${reports[@]}"}; do
            [ ! -e "$report" ] || echo "$report"
        done
        echo "TRAILGATE_REPORTS"
    } >>"$GITHUB_OUTPUT"
fi
exit "$code"
