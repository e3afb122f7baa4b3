#!/usr/bin/env python3
"""Hand-over steps from a scheduler trace of the cross-process contention case.

Reads the output of `perf sched timehist -w` (one line per context switch, and one per
wake-up, naming the waker and the woken thread) recorded during the measurement window
of `scale-processes/1/<candidate>`, and prints two Markdown tables:

* per kind of thread (the server, the clients' Netty I/O threads, their callers, the
  engine's own threads): times it was switched in per hand-over, its mean scheduling
  delay (woken to running) and its CPU per hand-over;
* where the candidate hands over by pub/sub (the waiter's grant heard on one I/O thread,
  its release written by another), the chain of one hand-over, step by step: the server
  writes the grant, the waiter's pub/sub I/O thread wakes its caller, the caller hands
  its release to the command I/O thread, which writes it, and the server, once woken,
  writes the next grant. The chain is found from wake-ups alone: the server wakes I/O
  thread A of a client, A wakes that client's caller, the caller then wakes I/O thread
  B != A of the same client (a reply and the next command go through one thread);
* the longest times from one grant to the next, with the tasks that ran most in each
  (on a machine where a kernel thread holds a CPU for milliseconds at a time, these
  gaps are the wait tail, whichever the candidate).

Usage: handover_steps.py TIMEHIST_FILE HANDOVERS_PER_SECOND CLIENT_PIDS SERVER_PID
(CLIENT_PIDS comma-separated; SERVER_PID 0 for the redis-server switched in most often).
Standard library only.
"""
import bisect
import collections
import re
import statistics
import sys

WAKE = re.compile(r'^\s*([\d.]+)\s+\[(\d+)\]\s+(.+?)\[(\d+)(?:/(\d+))?\]\s+awakened: (.+?)\[(\d+)(?:/(\d+))?\]')
RUN = re.compile(r'^\s*([\d.]+)\s+\[(\d+)\]\s+(.+?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)')


def kind(comm, pid, clients, server):
    if pid == server:
        return 'server (redis-server)'
    if pid not in clients:
        return None
    if comm.startswith('lettuce-nioEven') or comm.startswith('lettuce-epollE'):
        return 'client I/O threads (Netty)'
    if comm == 'java':
        return 'client callers (main thread)'
    if comm.startswith('quorumlock'):
        return 'client engine threads (' + comm + ')'
    if 'Compiler' in comm or comm.startswith('C1 ') or comm.startswith('C2 '):
        return 'client JIT compilers'
    return 'client other threads'


def busiest_server(path):
    """The redis-server process switched in most often in the trace."""
    counts = collections.Counter()
    with open(path, encoding='latin-1') as lines:
        for line in lines:
            m = RUN.match(line)
            if m and m.group(3).strip() == 'redis-server':
                counts[int(m.group(5) or m.group(4))] += 1
    return counts.most_common(1)[0][0] if counts else 0


def main(path, rate, clients, server):
    if server == 0:
        server = busiest_server(path)
    wakes, runs, first, last = [], [], None, None
    per_kind = collections.defaultdict(lambda: [0, 0.0, 0.0])  # switches, delay sum, runtime sum
    with open(path, encoding='latin-1') as lines:
        for line in lines:
            m = WAKE.match(line)
            if m:
                t, _, wn, wt, wp, en, et, ep = m.groups()
                wakes.append((float(t), wn.strip(), int(wt), int(wp or wt), en.strip(), int(et), int(ep or et)))
                continue
            m = RUN.match(line)
            if m:
                t, _, comm, tid, pid, _wait, delay, runtime = m.groups()
                t = float(t)
                runs.append((t - float(runtime) / 1000, t, comm.strip(), int(pid or tid)))
                first = t if first is None else first
                last = t
                k = kind(comm.strip(), int(pid or tid), clients, server)
                if k:
                    row = per_kind[k]
                    row[0] += 1
                    row[1] += float(delay)
                    row[2] += float(runtime)
    if first is None or last <= first:
        sys.exit('handover_steps.py: no context switches in ' + path)
    handovers = rate * (last - first)
    print(f'Traced {last - first:.2f} s, {handovers:,.0f} hand-overs ({rate:,.0f}/s).')
    print()
    print('| threads | switched in per hand-over | mean scheduling delay (µs) | CPU per hand-over (µs) |')
    print('|---|---:|---:|---:|')
    for k, (n, delay, runtime) in sorted(per_kind.items(), key=lambda kv: -kv[1][2]):
        if n / handovers >= 0.01:
            print(f'| {k} | {n / handovers:.2f} | {1000 * delay / n:.1f} | {1000 * runtime / handovers:.1f} |')
    print()
    grants = chains(wakes, clients, server)
    longest_gaps(grants, runs, clients, server)


def chains(wakes, clients, server):
    """Print the steps of the hand-over chains; return when every grant was written.

    A grant here is the server waking a client's I/O thread that then wakes that client's
    caller (the grant heard, or a reply the caller waited for).
    """
    server_woke = {}  # I/O thread -> when the server woke it
    heard = {}  # client pid -> (server wrote, I/O thread A, A woke the caller)
    grants = []  # when the server wrote each grant
    found = []  # (server wrote, caller woken, release handed, client pid, I/O thread B)
    for t, _wn, wt, wp, en, et, ep in wakes:
        if wp == server and ep in clients:
            server_woke[et] = t
        elif wp in clients and ep == wp and en == 'java' and wt != et:
            t0 = server_woke.pop(wt, None)
            if t0 is not None:
                heard[wp] = (t0, wt, t)
                grants.append(t0)
        elif wp in clients and ep == wp and wt != et and wp in heard and en != 'java':
            t0, a, t1 = heard.pop(wp)
            if et != a:
                found.append((t0, t1, t, wp, et))
    found.sort()
    times = [w[0] for w in wakes]
    steps = collections.defaultdict(list)
    for i in range(len(found) - 1):
        t0, t1, t2, pid, b = found[i]
        n0 = found[i + 1][0]
        if found[i + 1][3] == pid or n0 < t2:
            continue  # not a hand-over to another client right after this one
        steps['a'].append(t1 - t0)
        steps['b'].append(t2 - t1)
        steps['c'].append(n0 - t2)
        steps['period'].append(n0 - t0)
        j = bisect.bisect_left(times, t2)
        woke_server, before = None, 0
        while j < len(wakes) and wakes[j][0] < n0:
            w = wakes[j]
            if woke_server is None and w[2] == b and w[6] == server:
                woke_server = w[0]
            if w[3] == server:
                before += 1
            j += 1
        steps['others'].append(before)
        if woke_server is not None:
            steps['c1'].append(woke_server - t2)
            steps['c2'].append(n0 - woke_server)
    if len(steps['period']) < 100:
        print('No pub/sub hand-over chains found (a candidate that polls, or one I/O thread per client).')
        return grants

    def us(values):
        return f'{1e6 * statistics.mean(values):.1f} | {1e6 * statistics.median(values):.1f}'

    print(f'Hand-over chains found: {len(steps["period"]):,}.')
    print()
    print('| step | mean (µs) | median (µs) |')
    print('|---|---:|---:|')
    print(f'| 1. the server writes the grant → the waiter\'s pub/sub I/O thread wakes its caller | {us(steps["a"])} |')
    print(f'| 2. the caller runs, releases → it wakes the command I/O thread | {us(steps["b"])} |')
    print(f'| 3. the command I/O thread → the server → the next grant written | {us(steps["c"])} |')
    if steps['c1']:
        print(f'| 3a. of which, where the server slept: the I/O thread woken → it wakes the server '
              f'({len(steps["c1"]):,} chains) | {us(steps["c1"])} |')
        print(f'| 3b. the server woken → the next grant written | {us(steps["c2"])} |')
    print(f'| one hand-over (grant to grant) | {us(steps["period"])} |')
    print()
    print(f'Threads the server woke between the release\'s hand-off and the next grant (writes ahead of it): '
          f'{statistics.mean(steps["others"]):.2f} on average.')
    return grants


def longest_gaps(grants, runs, clients, server, count=10):
    """The longest times between two grants (see chains), and the tasks that ran most in each.

    A gap of milliseconds where some task outside the case held a CPU is the machine's, not
    the candidate's.
    """
    grants = sorted(grants)
    gaps = sorted(((grants[i + 1] - grants[i], grants[i]) for i in range(len(grants) - 1)), reverse=True)
    if not gaps:
        return
    runs.sort()
    starts = [r[0] for r in runs]
    longest = max(r[1] - r[0] for r in runs)
    print()
    print(f'The {count} longest times from one grant to the next, and the tasks that ran most in each '
          f'(ms of CPU; "case" marks the clients and the server):')
    print()
    print('| gap (ms) | tasks that ran most in it |')
    print('|---:|---|')
    for gap, t0 in gaps[:count]:
        t1 = t0 + gap
        used = collections.Counter()
        for start, end, comm, pid in runs[bisect.bisect_left(starts, t0 - longest):bisect.bisect_right(starts, t1)]:
            overlap = min(end, t1) - max(start, t0)
            if overlap > 0:
                mark = ' (case)' if pid in clients or pid == server else ''
                used[f'{comm}{mark}'] += 1000 * overlap
        tasks = ', '.join(f'{name} {ms:.1f}' for name, ms in used.most_common(4))
        print(f'| {1000 * gap:.1f} | {tasks} |')


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(sys.argv[1], float(sys.argv[2]), {int(p) for p in sys.argv[3].split(',') if p}, int(sys.argv[4]))
