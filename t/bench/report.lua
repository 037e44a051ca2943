-- SPDX-License-Identifier: Apache-2.0
-- wrk script for t/bench/run.sh: one machine-readable line per run.
--   BENCH <requests> <duration_us> <p50_us> <p99_us> <socket_errors> <status_errors> <bytes>
-- status_errors counts responses outside 2xx/3xx.
done = function(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("BENCH %d %d %d %d %d %d %d\n",
        summary.requests, summary.duration,
        latency:percentile(50), latency:percentile(99),
        e.connect + e.read + e.write + e.timeout, e.status,
        summary.bytes))
end
