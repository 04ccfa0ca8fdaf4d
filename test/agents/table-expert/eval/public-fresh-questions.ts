/**
 * A fresh held-out part over the public tables (issue 31 item 6): 64 questions written after the
 * work on asking before declining, counting nouns, answer shape and date inference, committed
 * before they were ever run, then run once and recorded (public-record.ts). Never used for tuning.
 * Same tables and conventions as public-questions.ts (quarters as `2017-Q1`). Eight questions of
 * the first version repeated questions of the earlier (tuned) parts; they were replaced by eight
 * new ones (pf008, pf011, pf020, pf029, pf032, pf047, pf048, pf053), committed before their run.
 */
import type { DatasetName } from './types.js';

const SS = 'superstore';
const B = 'bank';
const ST = 'stocks';
const POP = 'country_by_population';
const LIFE = 'country_by_life_expectancy';
const TEMP = 'country_by_yearly_average_temperature';
const AREA = 'country_by_surface_area';
const CONT = 'country_by_continent';
const HEIGHT = 'country_by_avg_male_height';
const C = 'countries';

export const FRESH_PUBLIC: Array<[string, string, Exclude<DatasetName, 'retail' | 'support'>]> = [
  ['Total profit in 2016', `SELECT sum("Profit") FROM ${SS} WHERE year("Order Date") = 2016`, 'superstore'],
  ['Sales by segment in 2017', `SELECT "Segment", sum("Sales") FROM ${SS} WHERE year("Order Date") = 2017 GROUP BY 1`, 'superstore'],
  ['Which region had the most orders?', `SELECT "Region" FROM ${SS} GROUP BY 1 ORDER BY count(DISTINCT "Order ID") DESC LIMIT 1`, 'superstore'],
  ['Average quantity by region', `SELECT "Region", avg("Quantity") FROM ${SS} GROUP BY 1`, 'superstore'],
  ['How many customers are in the Home Office segment?', `SELECT count(DISTINCT "Customer ID") FROM ${SS} WHERE "Segment" = 'Home Office'`, 'superstore'],
  ['Top 5 states by profit', `SELECT "State", sum("Profit") AS p FROM ${SS} GROUP BY 1 ORDER BY p DESC LIMIT 5`, 'superstore'],
  ['Sales of phones in 2015', `SELECT sum("Sales") FROM ${SS} WHERE "Sub-Category" = 'Phones' AND year("Order Date") = 2015`, 'superstore'],
  ['Which segment has the lowest sales?', `SELECT "Segment" FROM ${SS} GROUP BY 1 ORDER BY sum("Sales") ASC LIMIT 1`, 'superstore'],
  ['Total sales by category', `SELECT "Category", sum("Sales") FROM ${SS} GROUP BY 1`, 'superstore'],
  ['How many orders were shipped First Class?', `SELECT count(DISTINCT "Order ID") FROM ${SS} WHERE "Ship Mode" = 'First Class'`, 'superstore'],
  ['Number of customers by region', `SELECT "Region", count(DISTINCT "Customer ID") FROM ${SS} GROUP BY 1`, 'superstore'],
  ['Quarterly profit in 2017', `SELECT strftime("Order Date", '%Y') || '-Q' || quarter("Order Date"), sum("Profit") FROM ${SS} WHERE year("Order Date") = 2017 GROUP BY 1`, 'superstore'],
  ['Average discount in the West region', `SELECT avg("Discount") FROM ${SS} WHERE "Region" = 'West'`, 'superstore'],
  ['Which city has the highest sales?', `SELECT "City" FROM ${SS} GROUP BY 1 ORDER BY sum("Sales") DESC LIMIT 1`, 'superstore'],
  ['What was the total quantity of binders sold?', `SELECT sum("Quantity") FROM ${SS} WHERE "Sub-Category" = 'Binders'`, 'superstore'],
  ['Profit by year', `SELECT year("Order Date") AS y, sum("Profit") FROM ${SS} GROUP BY 1 ORDER BY y`, 'superstore'],

  ['How many retired clients are there?', `SELECT count(*) FROM ${B} WHERE job = 'retired'`, 'bank'],
  ['Average age by marital status', `SELECT marital, avg(age) FROM ${B} GROUP BY 1`, 'bank'],
  ['What is the average balance?', `SELECT avg(balance) FROM ${B}`, 'bank'],
  ['Which marital status has the highest average age?', `SELECT marital FROM ${B} GROUP BY 1 ORDER BY avg(age) DESC LIMIT 1`, 'bank'],
  ['How many clients have a loan?', `SELECT count(*) FROM ${B} WHERE loan`, 'bank'],
  ['Number of clients by education', `SELECT education, count(*) FROM ${B} GROUP BY 1`, 'bank'],
  ['Minimum balance', `SELECT min(balance) FROM ${B}`, 'bank'],
  ['How many clients are older than 60?', `SELECT count(*) FROM ${B} WHERE age > 60`, 'bank'],
  ['Average campaign by job', `SELECT job, avg(campaign) FROM ${B} GROUP BY 1`, 'bank'],
  ['How many clients were contacted in June?', `SELECT count(*) FROM ${B} WHERE month = 'jun'`, 'bank'],
  ['Total balance of management clients', `SELECT sum(balance) FROM ${B} WHERE job = 'management'`, 'bank'],
  ['Clients by month', `SELECT month, count(*) FROM ${B} GROUP BY 1`, 'bank'],
  ['Average balance of housemaids', `SELECT avg(balance) FROM ${B} WHERE job = 'housemaid'`, 'bank'],
  ['How many married clients have a balance over 10000?', `SELECT count(*) FROM ${B} WHERE marital = 'married' AND balance > 10000`, 'bank'],

  ['How many stocks are in the Health technology sector?', `SELECT count(*) FROM ${ST} WHERE "Sector" = 'Health technology'`, 'stocks'],
  ['Average market cap by exchange', `SELECT "Exchange", avg("Market capitalization") FROM ${ST} GROUP BY 1`, 'stocks'],
  ['What is the price of MSFT?', `SELECT "Price" FROM ${ST} WHERE "Symbol" = 'MSFT'`, 'stocks'],
  ['Which stock has the highest volume?', `SELECT "Symbol" FROM ${ST} ORDER BY "Volume 1 day" DESC NULLS LAST LIMIT 1`, 'stocks'],
  ['Number of stocks by analyst rating', `SELECT "Analyst Rating", count(*) FROM ${ST} GROUP BY 1`, 'stocks'],
  ['Top 3 sectors by total market cap', `SELECT "Sector", sum("Market capitalization") AS m FROM ${ST} GROUP BY 1 ORDER BY m DESC NULLS LAST LIMIT 3`, 'stocks'],
  ['How many stocks are listed on AMEX?', `SELECT count(*) FROM ${ST} WHERE "Exchange" = 'AMEX'`, 'stocks'],
  ['Average P/E ratio of Finance stocks', `SELECT avg("Price to earnings ratio") FROM ${ST} WHERE "Sector" = 'Finance'`, 'stocks'],
  ['Which exchange has the most stocks?', `SELECT "Exchange" FROM ${ST} GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, 'stocks'],
  ['What is the market cap of TSLA?', `SELECT "Market capitalization" FROM ${ST} WHERE "Symbol" = 'TSLA'`, 'stocks'],
  ['How many stocks have a price above 1000?', `SELECT count(*) FROM ${ST} WHERE "Price" > 1000`, 'stocks'],
  ['Median price of NYSE stocks', `SELECT median("Price") FROM ${ST} WHERE "Exchange" = 'NYSE'`, 'stocks'],

  ['What is the population of Canada?', `SELECT population FROM ${POP} WHERE country = 'Canada'`, 'world'],
  ['Life expectancy in Italy', `SELECT expectancy FROM ${LIFE} WHERE country = 'Italy'`, 'world'],
  ['How many countries are in South America?', `SELECT count(*) FROM ${CONT} WHERE continent = 'South America'`, 'world'],
  ['What is the surface area of Australia?', `SELECT area FROM ${AREA} WHERE country = 'Australia'`, 'world'],
  ['Which country has the smallest population?', `SELECT country FROM ${POP} ORDER BY population ASC NULLS LAST LIMIT 1`, 'world'],
  ['Average population by continent', `SELECT c.continent, avg(p.population) FROM ${POP} p JOIN ${CONT} c USING (country) GROUP BY 1`, 'world'],
  ['Top 3 countries by average temperature', `SELECT country, temperature FROM ${TEMP} ORDER BY temperature DESC NULLS LAST LIMIT 3`, 'world'],
  ['Total surface area of Europe', `SELECT sum(a.area) FROM ${AREA} a JOIN ${CONT} c USING (country) WHERE c.continent = 'Europe'`, 'world'],
  ['Average male height in Asia', `SELECT avg(h.height) FROM ${HEIGHT} h JOIN ${CONT} c USING (country) WHERE c.continent = 'Asia'`, 'world'],
  ['How many countries have a population above 50 million?', `SELECT count(*) FROM ${POP} WHERE population > 50000000`, 'world'],
  ['Which continent has the largest total area?', `SELECT c.continent FROM ${AREA} a JOIN ${CONT} c USING (country) GROUP BY 1 ORDER BY sum(a.area) DESC LIMIT 1`, 'world'],
  ['What is the average temperature in Egypt?', `SELECT temperature FROM ${TEMP} WHERE country = 'Egypt'`, 'world'],

  ['What is the capital of Spain?', `SELECT "Capital" FROM ${C} WHERE "Name" = 'Spain'`, 'countries'],
  ['How many countries have the currency EUR?', `SELECT count(*) FROM ${C} WHERE "Currency" = 'EUR'`, 'countries'],
  ['List the countries in Oceania', `SELECT "Name" FROM ${C} WHERE "Continent" = 'Oceania'`, 'countries'],
  ['What is the country code of Mexico?', `SELECT "Code" FROM ${C} WHERE "Name" = 'Mexico'`, 'countries'],
  ['Which country has the capital Nairobi?', `SELECT "Name" FROM ${C} WHERE "Capital" = 'Nairobi'`, 'countries'],
  ['What currency does Japan use?', `SELECT "Currency" FROM ${C} WHERE "Name" = 'Japan'`, 'countries'],
  ['Number of countries by currency', `SELECT "Currency", count(*) FROM ${C} GROUP BY 1`, 'countries'],
  ['What is the phone code of Brazil?', `SELECT "Phone" FROM ${C} WHERE "Name" = 'Brazil'`, 'countries'],
  ['How many countries are in Africa?', `SELECT count(*) FROM ${C} WHERE "Continent" = 'Africa'`, 'countries'],
  ['What are the languages of Canada?', `SELECT "Languages" FROM ${C} WHERE "Name" = 'Canada'`, 'countries'],
];
