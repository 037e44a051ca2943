-- SPDX-License-Identifier: Apache-2.0
-- wrk script for t/bench/commits.sh: each connection writes to a table (or
-- a schema) of its own, one request after the other (run with as many
-- threads as connections: wrk gives each thread its own Lua state).
--   BENCH_MODE=commit: POST the UC Delta API's update of table <name> with
--     add-commit of the next version and the backfill of the one before,
--     as a Delta writer does (the staged files are not read by the server).
--   BENCH_MODE=patch: PATCH /schemas/bench.<name> with a new comment: a
--     catalog write of one row in one transaction, the reference.
-- BENCH_TARGETS names a file of "<name> <table id>" lines, one per thread;
-- BENCH_BASE is the catalog API's path, BENCH_HERE this directory.
-- Reports report.lua's line.
local mode = os.getenv("BENCH_MODE")
local base = os.getenv("BENCH_BASE")
local targets = {}
for line in io.lines(os.getenv("BENCH_TARGETS")) do
    local name, id = line:match("^(%S+)%s+(%S+)$")
    targets[#targets + 1] = { name = name, id = id }
end

local counter = 0
function setup(thread)
    counter = counter + 1
    thread:set("slot", counter)
end

function init(args)
    target = targets[slot or 1]
    version = 0
    if mode == "commit" then
        wrk.method = "POST"
        wrk.path = base .. "/delta/v1/catalogs/bench/schemas/sch/tables/" .. target.name
    else
        wrk.method = "PATCH"
        wrk.path = base .. "/schemas/bench." .. target.name
    end
    wrk.headers["Content-Type"] = "application/json"
end

-- wrk asks for a request it does not send (to see whether every request
-- is the same), so the version moves on an answer, not on a request.
function response(status, headers, body)
    if status == 200 then
        version = version + 1
    end
end

function request()
    if not target then
        return wrk.format()
    end
    local v = version + 1
    local body
    if mode == "commit" then
        body = string.format(
            '{"requirements":[{"type":"assert-table-uuid","uuid":"%s"}],' ..
            '"updates":[{"action":"add-commit","commit":{"version":%d,' ..
            '"timestamp":%d,"file-name":"%020d.bench.json","file-size":512,' ..
            '"file-modification-timestamp":%d}},' ..
            '{"action":"set-latest-backfilled-version",' ..
            '"latest-published-version":%d}]}',
            target.id, v, 1790000000000 + v, v, 1790000000000 + v, v - 1)
    else
        body = string.format('{"comment":"round %d"}', v)
    end
    return wrk.format(nil, nil, nil, body)
end

-- The report line of every run.
dofile(os.getenv("BENCH_HERE") .. "/report.lua")
