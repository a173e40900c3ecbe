#!/usr/bin/env lua
local NSIDES <const> = 6
local MAXDICE <const> = 24
local PAGESIZ <const> = 8
local CACHE = {}
--[[
-- Chance that a roll of `ndice`D`nsides` == `target`
]]--
local function p_roll_eq(ndice, nsides, target)
if ndice == 1 then
if target >= 1 and target <= nsides then
return (1/nsides)
end
elseif target >= ndice and target <= ndice * nsides then
local key = string.format("%02d\t%02d\t%02d", ndice, nsides, target)
local result = CACHE[key]
if result then
return result
end
-- sum(1, nsides, p(one die is i) * p(remaining dice == target - i))
local sum = 0.0
for i = 1, nsides do
sum = sum + p_roll_eq(1, nsides, i)
* p_roll_eq(ndice - 1, nsides, target - i)
end
CACHE[key] = sum
return sum
end
return 0.0
end
--[[
-- Chance that a roll of `ndice` D `nsides` >= `target`
]]--
local function p_roll_ge(ndice, nsides, target)
local sum = 0.0
for t = target, nsides * ndice do
sum = sum + p_roll_eq(ndice, nsides, t)
end
return sum
end
local function format_header(mindice, maxdice)
local buf = { "", " TN " }
for n = mindice, maxdice do
table.insert(buf, string.format(" %6dD ", n))
end
table.insert(buf, "")
return table.concat(buf, "|")
end
local function format_bar(mindice, maxdice)
local buf = { "", ":---:" }
for n = 1, maxdice - mindice + 1 do
table.insert(buf, "--------:")
end
table.insert(buf, "")
return table.concat(buf, "|")
end
local function format_row(target, results)
local buf = { "",
string.format(" %3d ", target),
}
for n = 1, #results do
if results[n] == 0.0 then
table.insert(buf, string.rep(' ', 9))
else
table.insert(buf, string.format(" %6.2f%% ", results[n] * 100))
end
end
table.insert(buf, "")
return table.concat(buf, "|")
end
local function feq(f1, f2)
return math.abs(f1 - f2) < 0.0001
end
local function print_table(nsides, mindice, maxdice)
print(format_header(mindice, maxdice))
print(format_bar(mindice, maxdice))
local step = nsides // 2
local max = maxdice * nsides
local min = step
for t = min, max, step do
-- Avoid rows with all 100% or all 0%
if not (feq(p_roll_ge(mindice, nsides, t), 1.0)
or feq(p_roll_ge(maxdice, nsides, t), 0.0)) then
local result = {}
for d = mindice, maxdice do
local i = 1 + d - mindice
result[i] = p_roll_ge(d, nsides, t)
end
print(format_row(t, result))
end
end
end
local function min(a, b)
if a < b then
return a
else
return b
end
end
local function print_pages(nsides, maxdice, pagesiz)
for p = 1, maxdice, pagesiz do
print()
print_table(nsides, p, min(maxdice, p + pagesiz - 1))
end
end
print_pages(NSIDES, MAXDICE, PAGESIZ)