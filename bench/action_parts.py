"""What an action costs the server, part by part, from py-spy's raw stacks.

    python bench/action_parts.py PROFILE [--per-action MS] [--top N]

PROFILE is what ``bench/load.py --profile FILE`` (the real server under load) or
``bench/action_cost.py --profile FILE`` (the server's code without sockets) recorded. Each
sample of the event loop's thread goes to one part: the innermost frame that names a part
decides (a view encoded inside a broadcast counts as encoding, the broadcast's writes as
sends). The parts:

    parse      the inbound message: JSON and the protocol's validation
    engine     judging and applying the move: the rules engine, the room's state, the
               dealer and fairness (seeds, commitments, dice)
    store      the journal's write: the entry encoded, queued, the writer's batch
    views      each seat's view of the game (dudo.view)
    encoding   JSON out: state messages, acks, events, the room's summary
    sends      each message through Starlette, uvicorn and the websockets library to the
               socket (the system call included: uvloop's write runs inside it)
    receive    frames in: uvicorn's parser, the socket's read loop, the rate limits
    actor      the room's loop and inbox, the journal's bookkeeping
    gc         the server's collector
    loop       uvloop and asyncio themselves: scheduling tasks and callbacks, waiting
               for the sockets (idle time too: py-spy counts a thread that waits in C
               as busy, so this part is not all CPU)

Other threads (the SQLite writer, the checkpointer) are counted apart. ``--per-action MS``
turns the shares into milliseconds of one action (the CPU per action measured in a run
without the profiler).
"""

from __future__ import annotations

import argparse
import collections
import re
import sys

PARTS: list[tuple[str, str]] = [
    ("gc", r"collector\.py|gc_callbacks"),
    (
        "encoding",
        r"\bdumps \(|orjson|json/encoder|to_json|table_json|bid_to_json|event_json"
        r"|_shared_json|_state_text|ack_message|Journal\.remember|ViewTexts\.text|_legal_text",
    ),
    ("views", r"dudo/view\.py"),
    ("store", r"dudo/store/|Journal\._store|settled_within|data_json"),
    ("parse", r"parse_client_message|dudo/server/protocol\.py|pydantic|json/decoder"),
    (
        "sends",
        r"WebSocket\.send|websockets_sansio_impl\.py:(4[4-9]\d|5\d\d)|websockets/(protocol|frames)"
        r"|_exception_handler.*sender|CatchAll.*watch|Connection\.send|Connection\._flush"
        r"|tell_seat|broadcast|send_away|tell_everyone|text_writer",
    ),
    (
        "receive",
        r"data_received|WebSocket\.receive|websockets/streams|table_socket\.py|gate\.py"
        r"|httptools|h11",
    ),
    (
        "engine",
        r"dudo/(game|rules|bids|dice|hands|fairness|rolloff)\.py|dudo/server/table/"
        r"(state|dealer|requests|schedule)\.py",
    ),
    ("actor", r"dudo/server/table/(room|inbox|journal)\.py|asyncio/queues"),
    ("loop", r"Runner\.run|asyncio|uvloop"),
]
RULES = [(name, re.compile(pattern)) for name, pattern in PARTS]
ORDER = ["parse", "engine", "store", "views", "encoding", "sends", "receive", "actor", "gc"]
ORDER += ["loop", "other"]


def read(path: str) -> tuple[collections.Counter[str], collections.Counter[str], int]:
    """Samples per part of the loop's thread, samples per other thread, and the total."""
    parts: collections.Counter[str] = collections.Counter()
    threads: collections.Counter[str] = collections.Counter()
    total = 0
    with open(path) as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            samples = int(count)
            frames = stack.split(";")
            total += samples
            if "Thread._bootstrap" in frames[0]:
                threads[frames[3] if len(frames) > 3 else frames[-1]] += samples
                continue
            if frames[-1].startswith("WebSocketsSansIOProtocol.send ("):
                # uvicorn's send itself, no Python below it: uvloop's write in C (the
                # system call, and on loopback the delivery to the reader)
                parts["write"] += samples
            for frame in reversed(frames):
                part = next((name for name, pattern in RULES if pattern.search(frame)), None)
                if part is not None:
                    parts[part] += samples
                    break
            else:
                parts["other"] += samples
    return parts, threads, total


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile")
    parser.add_argument("--per-action", type=float, help="CPU ms per action, unprofiled")
    parser.add_argument("--top", type=int, default=3, help="other threads shown")
    args = parser.parse_args(argv)
    parts, threads, _total = read(args.profile)
    loop_samples = sum(samples for part, samples in parts.items() if part != "write")
    print(f"event loop thread: {loop_samples} samples")
    header = "| part | share |" + (" ms/action |" if args.per_action else "")
    print(header)
    print("|---|---:|" + ("---:|" if args.per_action else ""))
    for part in ORDER:
        share = parts.get(part, 0) / loop_samples if loop_samples else 0.0
        row = f"| {part} | {share:.1%} |"
        if args.per_action:
            row += f" {share * args.per_action:.3f} |"
        print(row)
    write = parts.get("write", 0) / loop_samples if loop_samples else 0.0
    print(
        f"of sends, uvicorn's send with nothing of Python below it (the socket's write in"
        f" uvloop, in C): {write:.1%}"
        + (f", {write * args.per_action:.3f} ms/action" if args.per_action else "")
    )
    for thread, samples in threads.most_common(args.top):
        print(f"other thread {thread}: {samples} samples (waiting included)")


if __name__ == "__main__":
    main(sys.argv[1:])
