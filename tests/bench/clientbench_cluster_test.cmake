# clientbench's cluster mode without a cluster (docs/benchmarks.md, "On a FoundationDB
# cluster"): RL_CLIENTBENCH_CLUSTER_FILE names a cluster file that holds `file:<dir>`, a durable
# store of this build's libfdb_c.so (loaded with RL_FDB_C_LIBRARY and RL_FDB_C_ALLOW_EMBEDDED=1),
# so that what the run leaves in the database can be read after the process is gone.
#
#   cmake -DCLIENTBENCH=<clientbench> -DRL=<rl> -DFDB_C_LIBRARY=<libfdb_c.so>
#         -DWORK_DIR=<scratch dir> -P clientbench_cluster_test.cmake
#
# Before the run the store holds keys next to the run's prefix ("clientbench", "smoke") on
# both sides, the key one past its range, the unprefixed key the in-process arms use, and two
# stale keys inside the prefix. Afterwards exactly the keys outside the prefix must be there
# with their values (the run wrote nothing outside its prefix and cleared nothing outside
# it), and nothing under the prefix (it was cleared, the stale keys included). The output JSON
# must have one row for each workload on the direct arm and the two cluster arms named after
# the library (rl_capi_prefixed, rl_c_prefixed), none on the arms of the default mode, no row
# skipped with an error (every workload checks its results), and the context must name the
# cluster file, the prefix and the library.

foreach(var CLIENTBENCH RL FDB_C_LIBRARY WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()

set(store ${WORK_DIR}/store)
set(cluster_file ${WORK_DIR}/clientbench.cluster)
set(json ${WORK_DIR}/clientbench.json)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${cluster_file} "file:${store}\n")

function(rl_kv)
  execute_process(COMMAND ${RL} kv --db file:${store} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rl kv ${ARGN}: exit ${rc}\n${out}${err}")
  endif()
  set(rl_kv_output "${out}" PARENT_SCOPE)
endfunction()

# Outside the prefix: they must survive as they are.
rl_kv(--tuple set "(\"clientbench\", \"smok\")" before)
rl_kv(--tuple set "(\"clientbench\", \"smoke-other\")" after)
rl_kv(set "\\x02clientbench\\x00\\x02smoke\\x00\\xff" end-of-range)
rl_kv(set key100000 direct-arms-key)
# Inside it, left by an earlier run: they must be gone.
rl_kv(--tuple set "(\"clientbench\", \"smoke\")" stale)
rl_kv(--tuple set "(\"clientbench\", \"smoke\", \"stale\")" stale)

# Without RL_FDB_C_ALLOW_EMBEDDED cluster mode refuses this build's library.
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env RL_CLIENTBENCH_CLUSTER_FILE=${cluster_file}
          RL_FDB_C_LIBRARY=${FDB_C_LIBRARY} --unset=RL_FDB_C_ALLOW_EMBEDDED
          ${CLIENTBENCH} --benchmark_list_tests
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "refusing .*RL_FDB_C_ALLOW_EMBEDDED=1")
  message(FATAL_ERROR "cluster mode on our libfdb_c.so without RL_FDB_C_ALLOW_EMBEDDED: "
                      "exit ${rc}, expected a refusal\n${out}${err}")
endif()

set(workloads grv get100 get1000 get10000 read1000 range10 range100 set100 ryw batchset50
              batchset50x1000)
# The filter would also take the default mode's C-API arms and the fdb_* names, were they
# registered.
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env RL_CLIENTBENCH_CLUSTER_FILE=${cluster_file}
          RL_CLIENTBENCH_RUN_ID=smoke RL_FDB_C_LIBRARY=${FDB_C_LIBRARY}
          RL_FDB_C_ALLOW_EMBEDDED=1 --unset=RECORDLAYER_ONE_WAY_DELAY_US
          ${CLIENTBENCH}
          "--benchmark_filter=^[a-z0-9]+/(rl|rl_c|rl_capi|rl_capi_delay250|rl_c_prefixed|rl_capi_prefixed|fdb_c|fdb_capi)(/real_time)?$"
          --benchmark_min_time=0.001 --benchmark_out=${json} --benchmark_out_format=json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clientbench in cluster mode: exit ${rc}")
endif()

file(READ ${json} report)
set(failures "")

# The rows.
string(JSON count LENGTH "${report}" benchmarks)
set(names "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${report}" benchmarks ${i} name)
  list(APPEND names "${name}")
  string(JSON error ERROR_VARIABLE no_error GET "${report}" benchmarks ${i} error_occurred)
  if(no_error STREQUAL "NOTFOUND" AND error)
    string(JSON why GET "${report}" benchmarks ${i} error_message)
    list(APPEND failures "${name} was skipped: ${why}")
  endif()
endforeach()
set(expected "")
foreach(w IN LISTS workloads)
  list(APPEND expected "${w}/rl" "${w}/rl_capi_prefixed/real_time" "${w}/rl_c_prefixed/real_time")
endforeach()
list(SORT names)
list(SORT expected)
if(NOT names STREQUAL expected)
  list(APPEND failures "rows: ${names}\n  expected: ${expected}")
endif()

# The context.
function(expect_context key pattern)
  string(JSON value ERROR_VARIABLE missing GET "${report}" context "${key}")
  if(NOT missing STREQUAL "NOTFOUND")
    set(failures "${failures};context has no \"${key}\"" PARENT_SCOPE)
  elseif(NOT value MATCHES "${pattern}")
    set(failures "${failures};context \"${key}\" is \"${value}\", expected to match ${pattern}"
        PARENT_SCOPE)
  endif()
endfunction()
string(JSON value GET "${report}" context "cluster file")
if(NOT value STREQUAL cluster_file)
  list(APPEND failures "context \"cluster file\" is \"${value}\", expected ${cluster_file}")
endif()
expect_context("cluster run id" "^smoke$")
expect_context("cluster key prefix" "^\\\\x02clientbench\\\\x00\\\\x02smoke\\\\x00$")
expect_context("cluster libfdb_c" "libfdb_c\\.so \\(7\\.3\\.0-recordlayer,")
expect_context("cluster libfdb_c chosen by" "^RL_FDB_C_LIBRARY$")
expect_context("cluster arms" "^rl_capi_prefixed, rl_c_prefixed: this project's libfdb_c")
expect_context("cluster libfdb_c simulated one-way delay (us)" "^none$")

# The store after the run: the keys outside the prefix, as they were; none inside it.
rl_kv(--json --tuple getrange "()" --limit 0)  # every key: [pack(()), pack(()) + 0xff)
string(JSON left LENGTH "${rl_kv_output}")
set(rows "")
if(left GREATER 0)
  math(EXPR last "${left} - 1")
  foreach(i RANGE ${last})
    string(JSON key GET "${rl_kv_output}" ${i} key)
    string(JSON value GET "${rl_kv_output}" ${i} value)
    string(LENGTH "${value}" length)
    if(length GREATER 40)  # not one of ours: shown shortened
      string(SUBSTRING "${value}" 0 40 value)
      string(APPEND value "... (${length} bytes)")
    endif()
    list(APPEND rows "${key} = ${value}")
  endforeach()
endif()
set(expected_rows
    "\\x02clientbench\\x00\\x02smok\\x00 = before"
    "\\x02clientbench\\x00\\x02smoke\\x00\\xff = end-of-range"
    "\\x02clientbench\\x00\\x02smoke-other\\x00 = after"
    "key100000 = direct-arms-key")
if(NOT rows STREQUAL expected_rows)
  list(JOIN rows "\n    " shown)
  list(APPEND failures "the store after the run holds:\n    ${shown}\n  expected exactly the "
                       "four keys outside the prefix")
endif()

if(failures)
  list(JOIN failures "\n" shown)
  message(FATAL_ERROR "${shown}")
endif()
message("clientbench cluster mode: ${count} rows, context and store as expected")
