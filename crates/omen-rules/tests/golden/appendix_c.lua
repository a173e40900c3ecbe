#!/usr/bin/env lua
local NSIDES = 6
-- Chance of rolling `t` or better on one die
local function success_1(t)
if t <= 1 then
return 1.0
elseif t > NSIDES then
return 0.0
else
return (NSIDES + 1 - t) / NSIDES
end
end
-- Chances of rolling `t` or better on `n` 6-sided dice.
local function success(n, t)
local p = success_1(t)
if n < 1 then
-- Special rule for dice pool <= 0:
-- roll 2 dice, get `t` or higher on BOTH
return p * p
else
return 1 - (1 - p)^n
end
end
local function format_col(t)
return string.format(" %-7d ", t)
end
local function format_percent(p)
if p == 0 then
return string.rep(" ", 9)
end
return string.format(" %6.2f%% ", p * 100)
end
local function print_header()
local rowbuf
rowbuf = { "Dice " }
for t = 2,NSIDES do
table.insert(rowbuf, format_col(t))
end
table.insert(rowbuf, "")
print(table.concat(rowbuf, '|'))
rowbuf = { ":---:" }
for t = 2,NSIDES do
table.insert(rowbuf, "--------:")
end
table.insert(rowbuf, "")
print(table.concat(rowbuf, '|'))
end
local function print_row(n)
local rowbuf = { string.format(" %2dd ", n) }
for t = 2,NSIDES do
table.insert(rowbuf, format_percent(success(n,t)))
end
table.insert(rowbuf, "")
print(table.concat(rowbuf, '|'))
end
local function print_table(maxdice)
local md = (maxdice or 10)
print_header()
for n = 0, md do
print_row(n)
end
end
print_table(12)
