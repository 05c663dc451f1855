# rfsim_unity_groups(TARGET PREFIX MAX SOURCES...): compiles up to MAX of a
# target's sources as one file (a CMake unity build, UNITY_BUILD_MODE GROUP).
# The workload drivers and the test files are short bodies under headers that
# take most of their compile time; grouped, the headers are read once a group.
#
# Two sources go into different groups when one defines, at the start of a
# line, a name of the same spelling as the other (a constant, a struct, a
# helper function, a macro, a type alias), so that each keeps its own helpers
# in its anonymous namespace; the same when one defines a name that a local
# header the other includes (`#include "..."` of a file beside the sources,
# and the local headers it includes) defines, or when two different local
# headers they include define the same name (tests/mech/mech_test_util.h and
# tests/sm_core/sm_test_util.h). Not names: using-directives,
# using-declarations (`using Catch::Matchers::Contains;`) and namespace
# aliases (`namespace fs = std::filesystem;`), which may be repeated. Each
# source stays its own file, and its own unit of the tests.

# The names FILE defines at the start of a line, into OUT.
function(rfsim_unity_names file out)
  file(STRINGS ${file} lines REGEX "^[A-Za-z#]")
  set(names)
  foreach(line IN LISTS lines)
    if(line MATCHES "^using +namespace " OR line MATCHES "^using +[A-Za-z_:]+::[A-Za-z_][A-Za-z0-9_]* *;"
       OR line MATCHES "^namespace +[A-Za-z_][A-Za-z0-9_]* *= *[A-Za-z_:]+ *;" OR line MATCHES "^#include")
      continue()
    elseif(line MATCHES "^(struct|class|union|enum class|enum) +([A-Za-z_][A-Za-z0-9_]*)")
      list(APPEND names ${CMAKE_MATCH_2})
    elseif(line MATCHES "^(#define|using) +([A-Za-z_][A-Za-z0-9_]*)")
      list(APPEND names ${CMAKE_MATCH_2})
    elseif(line MATCHES "^[^(=;{]*[ *&]([A-Za-z_][A-Za-z0-9_]*) *[(=;{[]")
      list(APPEND names ${CMAKE_MATCH_1})
      # Every name of `constexpr int kA = 1, kB = 2`.
      string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]* *=[^=]" more "${line}")
      list(TRANSFORM more REPLACE " *=.$" "")
      list(APPEND names ${more})
    endif()
  endforeach()
  list(REMOVE_ITEM names namespace)
  list(REMOVE_DUPLICATES names)
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# The local headers FILE includes, and theirs, into OUT.
function(rfsim_unity_local_headers file out)
  set(todo ${file})
  set(found)
  while(todo)
    list(POP_FRONT todo f)
    get_filename_component(dir ${f} DIRECTORY)
    file(STRINGS ${f} incs REGEX "^#include \"")
    foreach(inc IN LISTS incs)
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${inc}")
      get_filename_component(h ${dir}/${inc} ABSOLUTE)
      string(FIND "${h}" "${PROJECT_SOURCE_DIR}/model/" in_model)
      if(EXISTS ${h} AND NOT h IN_LIST found AND NOT in_model EQUAL 0)
        list(APPEND found ${h})
        list(APPEND todo ${h})
      endif()
    endforeach()
  endwhile()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# -DRFSIM_UNITY=OFF compiles every source on its own: slower from clean, but an
# edit recompiles only its file, not its group.
option(RFSIM_UNITY "compile the model's, the drivers' and the tests' sources in groups of up to eight" ON)

function(rfsim_unity_groups target prefix max)
  if(NOT RFSIM_UNITY)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  set(groups 0)
  foreach(src ${ARGN})
    rfsim_unity_names(${src} names)
    # The local headers' names, bare and as name@header.
    rfsim_unity_local_headers(${src} headers)
    set(hnames)
    set(hqual)
    foreach(h IN LISTS headers)
      rfsim_unity_names(${h} hn)
      list(APPEND hnames ${hn})
      list(TRANSFORM hn APPEND "@${h}")
      list(APPEND hqual ${hn})
    endforeach()
    set(chosen ${groups})
    foreach(g RANGE ${groups})
      if(g EQUAL groups)
        break()
      endif()
      list(LENGTH group_${g}_sources count)
      if(NOT count LESS max)
        continue()
      endif()
      set(clash FALSE)
      foreach(n IN LISTS names)
        if(n IN_LIST group_${g}_names OR n IN_LIST group_${g}_hnames)
          set(clash TRUE)
          break()
        endif()
      endforeach()
      if(NOT clash)
        foreach(q IN LISTS hqual)
          string(REGEX REPLACE "@.*" "" n "${q}")
          if(n IN_LIST group_${g}_names OR (n IN_LIST group_${g}_hnames AND NOT q IN_LIST group_${g}_hqual))
            set(clash TRUE)
            break()
          endif()
        endforeach()
      endif()
      if(NOT clash)
        set(chosen ${g})
        break()
      endif()
    endforeach()
    if(chosen EQUAL groups)
      math(EXPR groups "${groups} + 1")
    endif()
    list(APPEND group_${chosen}_sources ${src})
    list(APPEND group_${chosen}_names ${names})
    list(APPEND group_${chosen}_hnames ${hnames})
    list(APPEND group_${chosen}_hqual ${hqual})
    set_source_files_properties(${src} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP ${prefix}_${chosen})
  endforeach()
endfunction()

# Every library and program defined under DIR (and its subfolders), each
# with its sources in DIR grouped by rfsim_unity_groups; targets that group
# their own sources already are left as they are.
function(rfsim_unity_groups_under dir max)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    get_target_property(unity ${t} UNITY_BUILD)
    if(unity OR NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(srcdir ${t} SOURCE_DIR)
    get_target_property(sources ${t} SOURCES)
    set(ours)
    foreach(s IN LISTS sources)
      get_filename_component(abs ${s} ABSOLUTE BASE_DIR ${srcdir})
      string(FIND "${abs}" "${dir}/" at)
      if(at EQUAL 0 AND abs MATCHES "\\.cpp$")
        list(APPEND ours ${abs})
      endif()
    endforeach()
    list(LENGTH ours n)
    if(n GREATER 1)
      rfsim_unity_groups(${t} ${t} ${max} ${ours})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d IN LISTS subdirs)
    rfsim_unity_groups_under(${d} ${max})
  endforeach()
endfunction()
