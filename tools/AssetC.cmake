# AssetC.cmake - compile a game's assets with assetc from a CMake build.
#
# Include this file (copy it into your tree or point CMAKE_MODULE_PATH at
# assetc's tools/ folder) and call assetc_add_assets() once per asset project:
#
#   include(AssetC)
#   assetc_add_assets(game_assets CONFIG assets/assetc.yml PRESET desktop ALL)
#   add_dependencies(game game_assets)
#   target_compile_definitions(game PRIVATE ASSETS_PACK="${game_assets_PACK}")
#
# The reference, how the incremental build works and the limitations are in
# docs/cmake.md. In short: CMake configure runs `assetc configure` (so a
# broken assetc.yml fails there, naming the file), and the build runs one
# custom command that re-configures and runs assetc's own Ninja graph
# through `assetc build` (under make's jobserver with a Makefiles generator). That
# command has a depfile listing every input the inner graph read, so a second
# build with nothing changed runs nothing at all.
#
# The same file is also the build step: the custom command runs it with
# `cmake -P AssetC.cmake` and ASSETC_STEP_PARAMS naming the step's parameters.
#
# Requires CMake 3.20 or newer.

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "AssetC.cmake needs CMake 3.20 or newer (this is ${CMAKE_VERSION})")
endif()
include_guard(GLOBAL)
# The functions below record these policies (3.20's behaviour: IN_LIST,
# depfiles of custom commands, ...) whatever the including project asks for.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20)

# ---------------------------------------------------------------------------
# Helpers shared by the configure side and the build step.
# ---------------------------------------------------------------------------

# Runs `ninja -C <dir> -t <tool> <args...>` and stores its standard output
# lines in <out_var>; a failing tool is a fatal error.
function(_assetc_ninja_tool out_var ninja dir)
  execute_process(
    COMMAND "${ninja}" -C "${dir}" -t ${ARGN}
    RESULT_VARIABLE status
    OUTPUT_VARIABLE text
    ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "assetc: `${ninja} -C ${dir} -t ${ARGN}` failed:\n${errors}")
  endif()
  string(REGEX REPLACE "\n+$" "" text "${text}")
  if(text STREQUAL "")
    set(lines "")
  else()
    string(REPLACE "\n" ";" lines "${text}")
  endif()
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

# Makes every path in the list <var> absolute against <base>.
function(_assetc_absolute_paths var base)
  set(result "")
  foreach(path IN LISTS ${var})
    cmake_path(ABSOLUTE_PATH path BASE_DIRECTORY "${base}" NORMALIZE)
    list(APPEND result "${path}")
  endforeach()
  set(${var} "${result}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------
# The build step (script mode): configure, run the inner Ninja, write the
# depfile that tells the outer build when to run this step again.
# ---------------------------------------------------------------------------

# Runs one command in the config's folder, letting it print to the terminal;
# a non-zero exit ends the step with <what> in the message.
function(_assetc_run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${ASSETC_CONFIG_DIR}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "assetc: ${what} failed for ${ASSETC_CONFIG_FILE} (exit status ${status})")
  endif()
endfunction()

# The paths named in assetc's regeneration depfile (<build dir>/configure.d):
# every folder configure walked and every mesh source it read.
function(_assetc_regeneration_inputs out_var)
  set(depfile "${ASSETC_BUILD_DIR}/configure.d")
  if(NOT EXISTS "${depfile}")
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  file(READ "${depfile}" text)
  # Join continued lines, drop the target, then split on unescaped spaces.
  string(REPLACE "\\\n" " " text "${text}")
  string(REGEX REPLACE "^[^\n]*[^\\\\]: " "" text "${text}")
  string(ASCII 1 space)
  string(REPLACE "\\ " "${space}" text "${text}")
  string(REPLACE "\\#" "#" text "${text}")
  string(REPLACE "\\:" ":" text "${text}")
  string(REPLACE "$$" "$" text "${text}")
  string(REGEX REPLACE "[ \t\n]+" ";" text "${text}")
  set(paths "")
  foreach(word IN LISTS text)
    if(NOT word STREQUAL "")
      string(REPLACE "${space}" " " word "${word}")
      list(APPEND paths "${word}")
    endif()
  endforeach()
  set(${out_var} "${paths}" PARENT_SCOPE)
endfunction()

# The files the inner graph's default targets read, from Ninja itself: the
# explicit and implicit inputs (`-t inputs`, which quotes a path holding a
# shell metacharacter in '…') and the depfile dependencies the encoders
# recorded (`-t deps`, unquoted, indented by four spaces).
function(_assetc_graph_inputs out_var)
  _assetc_ninja_tool(quoted "${ASSETC_NINJA}" "${ASSETC_CONFIG_DIR}" inputs)
  set(inputs "")
  foreach(line IN LISTS quoted)
    if(line MATCHES "^'(.*)'$")
      string(REPLACE "'\\''" "'" line "${CMAKE_MATCH_1}")
    endif()
    list(APPEND inputs "${line}")
  endforeach()
  _assetc_ninja_tool(deps_lines "${ASSETC_NINJA}" "${ASSETC_CONFIG_DIR}" deps)
  foreach(line IN LISTS deps_lines)
    if(line MATCHES "^    (.+)$")
      list(APPEND inputs "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out_var} "${inputs}" PARENT_SCOPE)
endfunction()

# True in <out_var> when <path> is produced by the inner graph or lives in
# its build folder, so it must not be an input of the outer step.
function(_assetc_is_generated out_var path generated)
  set(result FALSE)
  if(path IN_LIST generated)
    set(result TRUE)
  endif()
  foreach(dir IN ITEMS "${ASSETC_BUILD_DIR}" "${ASSETC_OUTPUT_DIR}")
    cmake_path(IS_PREFIX dir "${path}" NORMALIZE inside)
    if(inside)
      set(result TRUE)
    endif()
  endforeach()
  set(${out_var} ${result} PARENT_SCOPE)
endfunction()

# One path escaped for a Makefile-style depfile. (cmake_path gives paths with
# forward slashes, and assetc refuses backslashes in source names.)
function(_assetc_depfile_escape out_var path)
  string(REPLACE " " "\\ " path "${path}")
  string(REPLACE "#" "\\#" path "${path}")
  string(REPLACE "$" "$$" path "${path}")
  set(${out_var} "${path}" PARENT_SCOPE)
endfunction()

# Writes the depfile of the outer step: the config, the assetc binaries and
# every source-side input of the inner graph, absolute, sorted, once each.
function(_assetc_write_depfile)
  _assetc_regeneration_inputs(walked)
  _assetc_graph_inputs(read)
  _assetc_ninja_tool(generated "${ASSETC_NINJA}" "${ASSETC_CONFIG_DIR}" targets all)
  list(TRANSFORM generated REPLACE ": [^:]+$" "")
  set(candidates ${walked} ${read})
  _assetc_absolute_paths(candidates "${ASSETC_CONFIG_DIR}")
  _assetc_absolute_paths(generated "${ASSETC_CONFIG_DIR}")
  set(deps "${ASSETC_CONFIG_FILE}" ${ASSETC_TOOLS})
  foreach(path IN LISTS candidates)
    _assetc_is_generated(skip "${path}" "${generated}")
    if(NOT skip)
      list(APPEND deps "${path}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES deps)
  list(SORT deps)
  _assetc_depfile_escape(text "${ASSETC_STAMP}")
  string(APPEND text ":")
  foreach(path IN LISTS deps)
    _assetc_depfile_escape(escaped "${path}")
    string(APPEND text " \\\n  ${escaped}")
  endforeach()
  file(WRITE "${ASSETC_DEPFILE}.tmp" "${text}\n")
  file(RENAME "${ASSETC_DEPFILE}.tmp" "${ASSETC_DEPFILE}")
endfunction()

# The whole build step.
function(_assetc_build_step)
  include("${ASSETC_STEP_PARAMS}")
  # Re-configure first: another build tree of the same source tree may have
  # rewritten build.ninja (it lives next to assetc.yml) with its own folders.
  # When nothing changed, configure writes nothing. `--fresh`: the flags
  # CMake passes are the whole story, whatever another tree's configure
  # remembered.
  _assetc_run("assetc configure" "${ASSETC_EXECUTABLE}" configure --fresh ${ASSETC_CONFIGURE_ARGS})
  # `assetc build` runs the inner Ninja under the jobserver make passed down
  # (see _assetc_add_step), or under a pool of its own (docs/build.md).
  set(ENV{NINJA} "${ASSETC_NINJA}")
  _assetc_run("the asset build (assetc build)" "${ASSETC_EXECUTABLE}" build)
  _assetc_write_depfile()
  file(TOUCH "${ASSETC_STAMP}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  if(NOT DEFINED ASSETC_STEP_PARAMS)
    message(FATAL_ERROR "AssetC.cmake: in script mode, pass -DASSETC_STEP_PARAMS=<params file>")
  endif()
  _assetc_build_step()
  cmake_policy(POP)
  return()
endif()

# ---------------------------------------------------------------------------
# The configure side: assetc_add_assets().
# ---------------------------------------------------------------------------

set(_ASSETC_MODULE_FILE "${CMAKE_CURRENT_LIST_FILE}")

# The assetc executable, by precedence: the ASSETC argument (an executable or
# the folder holding it), ASSETC_ROOT (CMake or environment variable; the
# folder or its bin/, never anything else), then ASSETC_EXECUTABLE (cached;
# found on PATH and in ~/.cargo/bin). assetc-encode and assetc-link must sit beside it, because
# assetc writes their paths into build.ninja from its own folder.
function(_assetc_find_executable out_var given)
  set(exe_name "assetc${CMAKE_EXECUTABLE_SUFFIX}")
  if(NOT given STREQUAL "")
    cmake_path(ABSOLUTE_PATH given BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    if(IS_DIRECTORY "${given}")
      set(exe "${given}/${exe_name}")
    else()
      set(exe "${given}")
    endif()
  else()
    set(root "${ASSETC_ROOT}")
    if(root STREQUAL "" AND DEFINED ENV{ASSETC_ROOT})
      set(root "$ENV{ASSETC_ROOT}")
    endif()
    if(NOT root STREQUAL "")
      cmake_path(ABSOLUTE_PATH root BASE_DIRECTORY "${CMAKE_BINARY_DIR}" NORMALIZE)
      set(exe "${root}/${exe_name}")
      if(NOT EXISTS "${exe}" AND EXISTS "${root}/bin/${exe_name}")
        set(exe "${root}/bin/${exe_name}")
      endif()
    else()
      find_program(ASSETC_EXECUTABLE NAMES assetc HINTS "$ENV{HOME}/.cargo/bin"
        DOC "The assetc executable (assetc-encode and assetc-link must be beside it)")
      if(NOT ASSETC_EXECUTABLE)
        message(FATAL_ERROR
          "assetc_add_assets: cannot find assetc. Install it (`cargo install --path <assetc repo>`), "
          "or pass ASSETC <folder or executable>, or set ASSETC_ROOT or ASSETC_EXECUTABLE.")
      endif()
      set(exe "${ASSETC_EXECUTABLE}")
    endif()
  endif()
  if(NOT EXISTS "${exe}" OR IS_DIRECTORY "${exe}")
    message(FATAL_ERROR "assetc_add_assets: ${exe}: no assetc executable there")
  endif()
  cmake_path(GET exe PARENT_PATH dir)
  foreach(tool IN ITEMS assetc-encode assetc-link)
    if(NOT EXISTS "${dir}/${tool}${CMAKE_EXECUTABLE_SUFFIX}")
      message(FATAL_ERROR
        "assetc_add_assets: ${dir}/${tool}${CMAKE_EXECUTABLE_SUFFIX} is missing; "
        "assetc runs the ${tool} that sits beside it")
    endif()
  endforeach()
  set(${out_var} "${exe}" PARENT_SCOPE)
endfunction()

# The Ninja that runs the inner graph: ASSETC_NINJA_EXECUTABLE when set, the
# generator's own program under a Ninja generator, else ninja on PATH.
function(_assetc_find_ninja out_var)
  if(ASSETC_NINJA_EXECUTABLE)
    set(ninja "${ASSETC_NINJA_EXECUTABLE}")
  elseif(CMAKE_GENERATOR MATCHES "Ninja" AND CMAKE_MAKE_PROGRAM)
    set(ninja "${CMAKE_MAKE_PROGRAM}")
  else()
    find_program(ASSETC_NINJA_EXECUTABLE NAMES ninja ninja-build
      DOC "The Ninja that runs assetc's asset graph")
    if(NOT ASSETC_NINJA_EXECUTABLE)
      message(FATAL_ERROR
        "assetc_add_assets: cannot find ninja; install it (Debian: ninja-build, PyPI: ninja) "
        "or set ASSETC_NINJA_EXECUTABLE")
    endif()
    set(ninja "${ASSETC_NINJA_EXECUTABLE}")
  endif()
  _assetc_require_ninja_1_11("${ninja}")
  set(${out_var} "${ninja}" PARENT_SCOPE)
endfunction()

# The build step lists the graph's inputs with `ninja -t inputs`, which Ninja
# gained in 1.11 (the graph itself needs only 1.10); older Ninjas stop here.
function(_assetc_require_ninja_1_11 ninja)
  execute_process(COMMAND "${ninja}" --version
    OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed)
  if(failed OR version VERSION_LESS 1.11)
    message(FATAL_ERROR
      "assetc_add_assets: ${ninja} is Ninja '${version}'; the CMake integration needs "
      "Ninja 1.11 or newer (for `ninja -t inputs`). Set ASSETC_NINJA_EXECUTABLE to a newer one.")
  endif()
endfunction()

# Runs `assetc configure <args>` now, at CMake configure time, so a broken
# config fails here with assetc's message naming the file.
function(_assetc_configure_now name exe config_file config_dir)
  execute_process(
    COMMAND "${exe}" configure --fresh ${ARGN}
    WORKING_DIRECTORY "${config_dir}"
    RESULT_VARIABLE status
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    string(STRIP "${err}" err)
    # Indented lines are printed as they are; CMake would re-wrap the others.
    string(REPLACE "\n" "\n  " err "  ${err}")
    message(FATAL_ERROR "assetc_add_assets(${name}): `assetc configure` failed for ${config_file}:\n${err}")
  endif()
endfunction()

# Sets <prefix>_MANIFEST, <prefix>_PACK, <prefix>_NAMED_PACKS,
# <prefix>_PACK_<name> and <prefix>_IDS_FILES / _IDS_HEADER in the caller
# from the link edges of the freshly written build.ninja.
function(_assetc_read_products prefix ninja config_dir output_dir)
  foreach(rule IN ITEMS link_manifest link_pack link_named_pack link_ids)
    _assetc_ninja_tool(files "${ninja}" "${config_dir}" targets rule ${rule})
    _assetc_absolute_paths(files "${config_dir}")
    set(${rule} "${files}")
  endforeach()
  set(${prefix}_MANIFEST "${link_manifest}" PARENT_SCOPE)
  set(${prefix}_PACK "${link_pack}" PARENT_SCOPE)
  set(${prefix}_NAMED_PACKS "${link_named_pack}" PARENT_SCOPE)
  set(pack_names "")
  foreach(pack IN LISTS link_named_pack)
    cmake_path(GET pack FILENAME file)
    cmake_path(GET output_dir FILENAME stem)
    string(LENGTH "${stem}." skip)
    string(SUBSTRING "${file}" ${skip} -1 pack_name)
    string(REGEX REPLACE "\\.hpack$" "" pack_name "${pack_name}")
    list(APPEND pack_names "${pack_name}")
    set(${prefix}_PACK_${pack_name} "${pack}" PARENT_SCOPE)
  endforeach()
  set(${prefix}_PACK_NAMES "${pack_names}" PARENT_SCOPE)
  set(${prefix}_IDS_FILES "${link_ids}" PARENT_SCOPE)
  set(header "")
  foreach(file IN LISTS link_ids)
    if(header STREQUAL "" AND NOT file MATCHES "\\.rs$")
      set(header "${file}")
    endif()
  endforeach()
  set(${prefix}_IDS_HEADER "${header}" PARENT_SCOPE)
endfunction()

# Writes the build step's parameters (only when they change, so the file's
# time moves only when a parameter does).
function(_assetc_write_params file)
  set(text "# Written by assetc_add_assets(); read by AssetC.cmake's build step.\n")
  foreach(var IN ITEMS ASSETC_EXECUTABLE ASSETC_NINJA ASSETC_CONFIG_FILE ASSETC_CONFIG_DIR
          ASSETC_CONFIGURE_ARGS ASSETC_OUTPUT_DIR ASSETC_BUILD_DIR ASSETC_STAMP ASSETC_DEPFILE
          ASSETC_TOOLS)
    string(REPLACE "\\" "\\\\" value "${${var}}")
    string(REPLACE "\"" "\\\"" value "${value}")
    string(REPLACE "$" "\\$" value "${value}")
    string(APPEND text "set(${var} \"${value}\")\n")
  endforeach()
  file(CONFIGURE OUTPUT "${file}" CONTENT "${text}" @ONLY)
endfunction()

# The custom command that runs the build step. With a Ninja or Makefile
# generator it has a depfile, so it runs only when an input changed; other
# generators cannot take a depfile here, and run the (cheap when nothing
# changed) step on every build.
#
# Under GNU make, the word `$(MAKE)` in the recipe marks it as a recursive
# make, so make leaves its jobserver open for it and the assets share make's
# -j (CMake 3.28's JOB_SERVER_AWARE does the same); the step script ignores
# the value. Other generators have no jobserver to pass.
function(_assetc_add_step name params stamp depfile byproducts depends)
  set(command "${CMAKE_COMMAND}" "-DASSETC_STEP_PARAMS=${params}")
  if(CMAKE_GENERATOR MATCHES "^(Unix|MSYS|MinGW) Makefiles$")
    list(APPEND command "-DASSETC_MAKE=$(MAKE)")
  endif()
  list(APPEND command -P "${_ASSETC_MODULE_FILE}")
  if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    add_custom_command(
      OUTPUT "${stamp}"
      BYPRODUCTS ${byproducts}
      COMMAND ${command}
      DEPENDS ${depends}
      DEPFILE "${depfile}"
      USES_TERMINAL
      COMMENT "Building assets ${name}"
      VERBATIM)
    set(${name}_ALWAYS_RUNS FALSE PARENT_SCOPE)
  else()
    add_custom_command(
      OUTPUT "${stamp}" "${stamp}.always"
      BYPRODUCTS ${byproducts}
      COMMAND ${command}
      DEPENDS ${depends}
      USES_TERMINAL
      COMMENT "Building assets ${name}"
      VERBATIM)
    set(${name}_ALWAYS_RUNS TRUE PARENT_SCOPE)
  endif()
endfunction()

#[=======================================================================[
assetc_add_assets(<name>
                  CONFIG <path/to/assetc.yml>
                  [PRESET <preset>]
                  [OUTPUT_DIR <dir>]
                  [PACK]
                  [ASSETC <assetc executable, or the folder holding it>]
                  [ALL])

Adds the custom target <name>, which builds the asset project of CONFIG into
OUTPUT_DIR (default: ${CMAKE_CURRENT_BINARY_DIR}/<name>). Sets, in the
caller's scope, <name>_OUTPUT_DIR, <name>_MANIFEST, <name>_PACK (empty when
the config builds no single pack), <name>_NAMED_PACKS, <name>_PACK_NAMES,
<name>_PACK_<pack name>, <name>_IDS_FILES, <name>_IDS_HEADER (the generated C
ids header, or empty) and <name>_ALWAYS_RUNS; the same facts are properties
ASSETC_OUTPUT_DIR, ASSETC_MANIFEST, ASSETC_PACK, ASSETC_NAMED_PACKS and
ASSETC_IDS_HEADER of the target. See docs/cmake.md.
#]=======================================================================]
function(assetc_add_assets name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PACK;ALL" "CONFIG;PRESET;OUTPUT_DIR;ASSETC" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "assetc_add_assets(${name}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_CONFIG)
    message(FATAL_ERROR "assetc_add_assets(${name}): CONFIG <path/to/assetc.yml> is required")
  endif()
  set(config_file "${arg_CONFIG}")
  cmake_path(ABSOLUTE_PATH config_file BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
  cmake_path(GET config_file FILENAME config_name)
  if(NOT config_name STREQUAL "assetc.yml")
    message(FATAL_ERROR
      "assetc_add_assets(${name}): CONFIG must name a file called assetc.yml (got ${config_file})")
  endif()
  if(NOT EXISTS "${config_file}")
    message(FATAL_ERROR "assetc_add_assets(${name}): ${config_file} does not exist")
  endif()
  cmake_path(GET config_file PARENT_PATH config_dir)

  set(output_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  if(arg_OUTPUT_DIR)
    set(output_dir "${arg_OUTPUT_DIR}")
    cmake_path(ABSOLUTE_PATH output_dir BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  endif()
  set(state_dir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${name}.assetc")

  _assetc_find_executable(ASSETC_EXECUTABLE "${arg_ASSETC}")
  _assetc_find_ninja(ASSETC_NINJA)
  set(ASSETC_CONFIG_FILE "${config_file}")
  set(ASSETC_CONFIG_DIR "${config_dir}")
  set(ASSETC_OUTPUT_DIR "${output_dir}")
  set(ASSETC_BUILD_DIR "${state_dir}/build")
  set(ASSETC_STAMP "${state_dir}/assets.stamp")
  set(ASSETC_DEPFILE "${state_dir}/assets.d")
  cmake_path(GET ASSETC_EXECUTABLE PARENT_PATH tool_dir)
  set(ASSETC_TOOLS "${ASSETC_EXECUTABLE}"
    "${tool_dir}/assetc-encode${CMAKE_EXECUTABLE_SUFFIX}"
    "${tool_dir}/assetc-link${CMAKE_EXECUTABLE_SUFFIX}")
  set(ASSETC_CONFIGURE_ARGS -o "${ASSETC_OUTPUT_DIR}" --build-dir "${ASSETC_BUILD_DIR}")
  if(arg_PRESET)
    list(PREPEND ASSETC_CONFIGURE_ARGS --preset "${arg_PRESET}")
  endif()
  if(arg_PACK)
    list(APPEND ASSETC_CONFIGURE_ARGS --pack)
  endif()

  # A changed assetc.yml re-runs CMake, and so this configure.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${config_file}")
  _assetc_configure_now("${name}" "${ASSETC_EXECUTABLE}" "${config_file}" "${config_dir}"
    ${ASSETC_CONFIGURE_ARGS})
  _assetc_read_products(products "${ASSETC_NINJA}" "${config_dir}" "${output_dir}")

  set(params "${state_dir}/params.cmake")
  _assetc_write_params("${params}")
  set(byproducts ${products_MANIFEST} ${products_PACK} ${products_NAMED_PACKS} ${products_IDS_FILES})
  _assetc_add_step("${name}" "${params}" "${ASSETC_STAMP}" "${ASSETC_DEPFILE}" "${byproducts}"
    "${params};${config_file};${ASSETC_TOOLS};${_ASSETC_MODULE_FILE}")
  if(arg_ALL)
    add_custom_target(${name} ALL DEPENDS "${ASSETC_STAMP}")
  else()
    add_custom_target(${name} DEPENDS "${ASSETC_STAMP}")
  endif()
  set_target_properties(${name} PROPERTIES
    ASSETC_OUTPUT_DIR "${output_dir}"
    ASSETC_MANIFEST "${products_MANIFEST}"
    ASSETC_PACK "${products_PACK}"
    ASSETC_NAMED_PACKS "${products_NAMED_PACKS}"
    ASSETC_IDS_HEADER "${products_IDS_HEADER}")

  set(${name}_OUTPUT_DIR "${output_dir}" PARENT_SCOPE)
  foreach(suffix IN ITEMS MANIFEST PACK NAMED_PACKS PACK_NAMES IDS_FILES IDS_HEADER)
    set(${name}_${suffix} "${products_${suffix}}" PARENT_SCOPE)
  endforeach()
  foreach(pack_name IN LISTS products_PACK_NAMES)
    set(${name}_PACK_${pack_name} "${products_PACK_${pack_name}}" PARENT_SCOPE)
  endforeach()
  set(${name}_ALWAYS_RUNS "${${name}_ALWAYS_RUNS}" PARENT_SCOPE)
endfunction()

cmake_policy(POP)
