# EmbedTable.cmake: compile numeric CSV tables into a C++ source, so that code never opens a
# data file at run time.
#
#   dctwin_embed_tables(
#     OUTPUT    <generated .cpp>        file to write (normally under CMAKE_CURRENT_BINARY_DIR)
#     HEADER    <header>                absolute path of the header that defines `EmbeddedTable`
#                                       and declares the tables `extern const`
#     NAMESPACE <C++ namespace>         namespace of the generated tables, e.g. a::b::tables
#     TABLES    <csv>...)               the tables, one C++ table per file
#
# CSV format: lines starting with '#' are comments (sources, units, doubts); empty lines are
# ignored; the first other line is the header, a comma-separated list of column names (C
# identifiers); every further line is a row of exactly as many numbers. Each file `name.csv`
# becomes, in NAMESPACE,
#
#   constexpr const char* name_columns[] = {"col0", "col1", ...};   (internal linkage)
#   constexpr double name_values[] = {row0col0, row0col1, ...};     (row-major, internal)
#   extern const EmbeddedTable name{"name.csv", name_columns, name_values};
#
# where EmbeddedTable (defined in HEADER) is an aggregate {const char* file; std::span<const
# char* const> columns; std::span<const double> values;}. The numbers are copied verbatim, so
# the compiled value is exactly the value written in the file.
#
# Generation runs at configure time. The CSV files are configure dependencies: editing one
# re-runs CMake on the next build, and the output file is rewritten only when its content
# changes (no needless recompilation). A malformed file stops the configuration with the file,
# line and reason.

function(_dctwin_embed_one_table csv out_var_definition)
  get_filename_component(file_name "${csv}" NAME)
  get_filename_component(stem "${csv}" NAME_WE)
  if(NOT stem MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${csv}: the file name must be a C identifier followed by .csv")
  endif()
  if(NOT EXISTS "${csv}")
    message(FATAL_ERROR "dctwin_embed_tables: ${csv} does not exist")
  endif()

  file(READ "${csv}" content)
  # Characters that CMake's list handling would interpret (separators, brackets, escapes) only
  # occur in comments; neutralise them before splitting into lines.
  string(REPLACE "\\" "/" content "${content}")
  string(REPLACE ";" "," content "${content}")
  string(REPLACE "[" "(" content "${content}")
  string(REPLACE "]" ")" content "${content}")
  string(REPLACE "\r" "" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")

  set(number_regex "^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$")
  set(line_number 0)
  set(column_count 0)
  set(row_count 0)
  set(columns_code "")
  set(values_code "")
  foreach(line IN LISTS lines)
    math(EXPR line_number "${line_number} + 1")
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^#")
      continue()
    endif()
    string(REPLACE "," ";" fields "${line}")
    list(LENGTH fields field_count)
    if(column_count EQUAL 0)
      # Header: column names.
      set(column_count ${field_count})
      foreach(name IN LISTS fields)
        string(STRIP "${name}" name)
        if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
          message(FATAL_ERROR
            "${csv}:${line_number}: column name '${name}' is not a C identifier "
            "(the first non-comment line must name the columns)")
        endif()
        string(APPEND columns_code "\"${name}\", ")
      endforeach()
      continue()
    endif()
    if(NOT field_count EQUAL column_count)
      message(FATAL_ERROR
        "${csv}:${line_number}: ${field_count} fields where the header names ${column_count}: "
        "'${line}'")
    endif()
    set(row_code "")
    foreach(field IN LISTS fields)
      string(STRIP "${field}" field)
      if(NOT field MATCHES "${number_regex}")
        message(FATAL_ERROR "${csv}:${line_number}: '${field}' is not a number: '${line}'")
      endif()
      if(NOT field MATCHES "[.eE]")
        string(APPEND field ".0")  # keep every literal a double
      endif()
      string(APPEND row_code "${field}, ")
    endforeach()
    string(APPEND values_code "    ${row_code}\n")
    math(EXPR row_count "${row_count} + 1")
  endforeach()
  if(column_count EQUAL 0 OR row_count EQUAL 0)
    message(FATAL_ERROR "${csv}: no header or no data rows")
  endif()

  set(definition "// ${file_name}: ${row_count} rows x ${column_count} columns\n")
  string(APPEND definition "constexpr const char* ${stem}_columns[] = {${columns_code}};\n")
  string(APPEND definition "constexpr double ${stem}_values[] = {\n${values_code}};\n")
  string(APPEND definition
    "static_assert(std::size(${stem}_values) == ${row_count} * ${column_count});\n")
  set(${out_var_definition} "${definition}" PARENT_SCOPE)
endfunction()

function(dctwin_embed_tables)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "OUTPUT;HEADER;NAMESPACE" "TABLES")
  foreach(required OUTPUT HEADER NAMESPACE TABLES)
    if(NOT ARG_${required})
      message(FATAL_ERROR "dctwin_embed_tables: ${required} is required")
    endif()
  endforeach()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dctwin_embed_tables: unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()

  set(internal_code "")
  set(exported_code "")
  set(source_list "")
  foreach(csv IN LISTS ARG_TABLES)
    get_filename_component(csv "${csv}" ABSOLUTE)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${csv}")
    _dctwin_embed_one_table("${csv}" definition)
    get_filename_component(file_name "${csv}" NAME)
    get_filename_component(stem "${csv}" NAME_WE)
    string(APPEND internal_code "${definition}\n")
    string(APPEND exported_code
      "extern const EmbeddedTable ${stem}{\"${file_name}\", ${stem}_columns, ${stem}_values};\n")
    file(RELATIVE_PATH relative "${PROJECT_SOURCE_DIR}" "${csv}")
    string(APPEND source_list "//   ${relative}\n")
  endforeach()

  set(code "// Generated by cmake/EmbedTable.cmake at configure time from\n${source_list}")
  string(APPEND code
    "// Do not edit: edit the CSV files (see their header comments) and rebuild.\n")
  string(APPEND code "#include \"${ARG_HEADER}\"\n\n#include <iterator>\n\n")
  string(APPEND code "namespace ${ARG_NAMESPACE} {\nnamespace {\n\n${internal_code}")
  string(APPEND code "}  // namespace\n\n${exported_code}\n}  // namespace ${ARG_NAMESPACE}\n")

  file(WRITE "${ARG_OUTPUT}.tmp" "${code}")
  file(COPY_FILE "${ARG_OUTPUT}.tmp" "${ARG_OUTPUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${ARG_OUTPUT}.tmp")
endfunction()
