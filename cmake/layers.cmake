# cmake/layers.cmake — the include rule of the house, checked on every build:
# a module includes its own headers and those of the modules below it, never
# one beside or above it. Run as `cmake -DSRC=<source dir> -P cmake/layers.cmake`;
# a wrong-way include fails the build naming the file, the include and both
# modules.
#
# The modules, lowest first. Modules of one rank are siblings and must not
# include each other (counters and report both build only on util).
set(PG_LAYERS
  "util=0"
  "counters=1" "report=1"
  "harness/store=2"
  "harness/bench=3"
  "harness/measure=4"
  "harness/cli=5"
  "launch=6")

if(NOT SRC)
  message(FATAL_ERROR "layers.cmake: -DSRC=<perfgate's source directory> is needed")
endif()

set(names "")
foreach(entry IN LISTS PG_LAYERS)
  string(REPLACE "=" ";" kv "${entry}")
  list(GET kv 0 name)
  list(GET kv 1 rank)
  set(rank_${name} ${rank})
  list(APPEND names ${name})
endforeach()

# The module a path belongs to: the longest module name it starts with.
function(pg_module out path)
  set(best "")
  foreach(name IN LISTS names)
    string(LENGTH "${name}" n)
    string(LENGTH "${best}" b)
    if(path MATCHES "^${name}/" AND n GREATER b)
      set(best ${name})
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

set(bad 0)
foreach(name IN LISTS names)
  file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/${name}/*.c ${SRC}/${name}/*.h)
  foreach(f IN LISTS files)
    pg_module(own ${f})
    if(NOT own STREQUAL name)
      continue()    # a file of a deeper module, checked as that one
    endif()
    file(STRINGS ${SRC}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"[^\"]+\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE ".*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" inc "${line}")
      pg_module(dep ${inc})
      if(dep STREQUAL "" OR dep STREQUAL own)
        continue()
      endif()
      if(NOT rank_${dep} LESS rank_${own})
        message(SEND_ERROR "${f}: #include \"${inc}\": ${own} may include only modules below it, and ${dep} is not")
        set(bad 1)
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "wrong-way includes (docs/architecture.md, \"Layers\")")
endif()
