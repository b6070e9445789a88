# SPDX-License-Identifier: GPL-2.0
# gdb script of harness/profile/profile.sh: stop at PROFILE_START (after a
# few hits, to be in the loop), then single-step, writing each program
# counter to PROFILE_OUT, until the same address again (a getppid() loop
# iteration) or, with PROFILE_CALL, the return of that call.
import os
import gdb

start = int(os.environ['PROFILE_START'], 16)
call = bool(os.environ.get('PROFILE_CALL'))
gdb.execute('set pagination off')
gdb.execute('target remote 127.0.0.1:%s' % os.environ['PROFILE_PORT'])
gdb.execute('hbreak *0x%x' % start)
for _ in range(3):
    gdb.execute('continue', to_string=True)
gdb.execute('delete')

mask = (1 << 64) - 1
def reg(name):
    return int(gdb.parse_and_eval(name)) & mask

sp = reg('$sp')
ret = reg('*(unsigned long *)$sp')
with open(os.environ['PROFILE_OUT'], 'w') as out:
    for _ in range(5000000):
        gdb.execute('stepi', to_string=True)
        pc = reg('$pc')
        out.write('%x\n' % pc)
        if call and pc == ret and reg('$sp') > sp:
            break
        if not call and pc == start:
            break
gdb.execute('kill')
