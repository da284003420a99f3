# Turns a text file into a C header holding it as a NUL-terminated char array,
# so that a page template can be edited as the HTML it is (report/history_page.html)
# and still be part of the binary.
# usage: cmake -DIN=file -DOUT=header.h -DNAME=c_identifier -P embed.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}.tmp" "/* Generated from ${IN} by cmake/embed.cmake: do not edit. */\nstatic const char ${NAME}[] = {\n${body}0x00};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
