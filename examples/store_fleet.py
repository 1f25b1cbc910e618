"""Run a fleet of ``skilldeck serve --store`` replicas on one machine, the way an
orchestrator would: migrate first, start every replica, admit each once its
``/readyz`` answers 200, and replace them one at a time (a rolling restart or
upgrade), never taking the next one down before the new one is ready.

    python examples/store_fleet.py --store URL --replicas 3 --port 8100
    python examples/store_fleet.py --store URL --replicas 2 --rolling-restart --exit

``--exit`` stops the fleet after the steps instead of serving until Ctrl-C (the
tests run it that way). Needs ``skilldeck[mcp,postgres]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import urllib.error
import urllib.request


def start(store: str, port: int) -> subprocess.Popen[bytes]:
    serve = ["serve", "--transport", "http", "--port", str(port), "--store", store]
    return subprocess.Popen([sys.executable, "-m", "skilldeck", *serve], stdout=subprocess.DEVNULL)


def status(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as got:
            return int(got.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


def wait_ready(proc: subprocess.Popen[bytes], port: int, timeout: float = 60.0) -> float:
    """Seconds until ``/readyz`` answered 200; exits when the replica died or never did."""
    began = time.monotonic()
    while status(port, "/readyz") != 200:
        if proc.poll() is not None:
            sys.exit(f"replica on port {port} exited with {proc.returncode}")
        if time.monotonic() - began > timeout:
            sys.exit(f"replica on port {port} not ready after {timeout:.0f} s")
        time.sleep(0.2)
    return time.monotonic() - began


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="the store's libpq URL")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--port", type=int, default=8100, help="the first replica's port")
    parser.add_argument("--rolling-restart", action="store_true")
    parser.add_argument("--exit", action="store_true", help="stop after the steps")
    args = parser.parse_args()

    subprocess.run(
        [sys.executable, "-m", "skilldeck", "store", "init", "--store", args.store], check=True
    )
    ports = [args.port + i for i in range(args.replicas)]
    fleet = {port: start(args.store, port) for port in ports}
    try:
        for port in ports:
            took = wait_ready(fleet[port], port)
            print(f"replica :{port} ready after {took:.1f} s", flush=True)
        if args.rolling_restart:
            for port in ports:  # one at a time: the others keep serving
                others = [p for p in ports if p != port]
                stop(fleet[port])
                if others and not all(status(p, "/readyz") == 200 for p in others):
                    sys.exit("a replica left the fleet while another was being replaced")
                fleet[port] = start(args.store, port)
                took = wait_ready(fleet[port], port)
                print(f"replica :{port} replaced, ready after {took:.1f} s", flush=True)
        if not args.exit:
            print("serving; Ctrl-C stops the fleet", flush=True)
            while all(p.poll() is None for p in fleet.values()):
                time.sleep(1.0)
    except KeyboardInterrupt:
        pass
    finally:
        for proc in fleet.values():
            stop(proc)


if __name__ == "__main__":
    main()
