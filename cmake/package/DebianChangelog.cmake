# Writes the package's Debian changelog, gzipped as Debian policy wants it
# (/usr/share/doc/pai/changelog.gz of a native package): one entry for this version whose
# items are the section titles of CHANGELOG.md's first release section (the work of each
# issue), each wrapped at 78 columns.
#
#   cmake -DSOURCE=CHANGELOG.md -DOUTPUT=.../changelog -DVERSION=0.1.0
#         -DMAINTAINER="name <address>" -DGZIP=/usr/bin/gzip -P DebianChangelog.cmake
#
# The date is the build's (SOURCE_DATE_EPOCH when set, for reproducible builds); the output is
# OUTPUT.gz, compressed with `gzip -9n` (no name or time stamp inside).
foreach(variable SOURCE OUTPUT VERSION MAINTAINER GZIP)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "DebianChangelog.cmake: ${variable} is not set")
  endif()
endforeach()

file(STRINGS "${SOURCE}" lines ENCODING UTF-8)
set(items)
set(in_release FALSE)
foreach(line IN LISTS lines)
  if(line MATCHES "^## ")
    if(in_release)
      break()
    endif()
    set(in_release TRUE)
  elseif(in_release AND line MATCHES "^### (.*)$")
    list(APPEND items "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(APPEND items "The whole record, by issue, with measurements: CHANGELOG.md in pai's source")

# "  * item" wrapped at 78 columns, continuation lines indented by four spaces.
set(body "")
foreach(item IN LISTS items)
  string(REPLACE "`" "" item "${item}")
  string(REPLACE " " ";" words "${item}")
  set(line "  *")
  foreach(word IN LISTS words)
    string(LENGTH "${line} ${word}" length)
    if(length GREATER 78 AND NOT line STREQUAL "  *" AND NOT line STREQUAL "   ")
      string(APPEND body "${line}\n")
      set(line "   ")
    endif()
    string(APPEND line " ${word}")
  endforeach()
  string(APPEND body "${line}\n")
endforeach()

string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE "${OUTPUT}"
     "pai (${VERSION}) unstable; urgency=medium\n\n${body}\n -- ${MAINTAINER}  ${date}\n")
execute_process(COMMAND "${GZIP}" -9nf "${OUTPUT}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "DebianChangelog.cmake: gzip failed on ${OUTPUT}")
endif()
