-- SPDX-License-Identifier: Apache-2.0
-- wrk script for t/bench/run.sh: POSTs the file named by BENCH_BODY as a
-- JSON body on every request, then reports like report.lua.
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
dofile(os.getenv("BENCH_HERE") .. "/report.lua")
