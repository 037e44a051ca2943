-- SPDX-License-Identifier: Apache-2.0
-- wrk script for figure 10 of t/bench/run.sh, run with -t1: POSTs
-- temporary-table-credentials (READ) for BENCH_COUNT table ids of the file
-- BENCH_IDS (one a line) from line BENCH_FROM + 1 on, each id once, so no
-- answer can come from the server's cache, and ends the run at the last
-- answer. One thread, because its count of answers is what ends the run.
-- Reports one line:
--   VEND <ok> <bad> <elapsed_us> <p50_us> <p99_us> <socket_errors> <requests>
-- ok: 200 answers holding aws_temp_credentials; elapsed: from the first
-- request to the last answer by the monotonic clock (wrk's own duration
-- also holds the wait for -d, which the run ends early).
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } vend_timespec;
int clock_gettime(int clock, vend_timespec *ts);
unsigned long pthread_self(void);
int getpid(void);
int kill(int pid, int sig);
]]
local CLOCK_MONOTONIC, SIGINT = 1, 2
local ts = ffi.new("vend_timespec")
local function now_us()
    ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
    return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local worker
function setup(thread)
    worker = thread
end

function init(args)
    -- wrk calls request() once from its main thread to see what it will
    -- send: that call must not use up a table.
    main_thread = ffi.C.pthread_self()
    local from = tonumber(os.getenv("BENCH_FROM"))
    local count = tonumber(os.getenv("BENCH_COUNT"))
    reqs = {}
    local n = 0
    for id in io.lines(os.getenv("BENCH_IDS")) do
        if n >= from and n < from + count then
            reqs[#reqs + 1] = wrk.format(nil, nil, nil,
                '{"table_id":"' .. id .. '","operation":"READ"}')
        end
        n = n + 1
    end
    assert(#reqs > 0, "no table ids in the slice")
    sent, answered, ok, first_us, last_us = 0, 0, 0, 0, 0
end

function request()
    if ffi.C.pthread_self() == main_thread then
        return reqs[1]
    end
    -- Every id asked: an empty request sends nothing and leaves the
    -- connection idle until the others' answers are in.
    if sent == #reqs then
        return ""
    end
    if sent == 0 then
        first_us = now_us()
    end
    sent = sent + 1
    return reqs[sent]
end

function response(status, headers, body)
    answered = answered + 1
    last_us = now_us()
    if status == 200 and
        body:find('"aws_temp_credentials":{"access_key_id":"', 1, true) then
        ok = ok + 1
    end
    if answered == #reqs then
        wrk.thread:stop()
        -- wrk's main thread sleeps for -d; SIGINT ends that sleep.
        ffi.C.kill(ffi.C.getpid(), SIGINT)
    end
end

function done(summary, latency, requests)
    local e = summary.errors
    local good, all = worker:get("ok"), worker:get("answered")
    io.write(string.format("VEND %d %d %d %d %d %d %d\n", good, all - good,
        math.floor(worker:get("last_us") - worker:get("first_us")),
        latency:percentile(50), latency:percentile(99),
        e.connect + e.read + e.write + e.timeout, summary.requests))
end
