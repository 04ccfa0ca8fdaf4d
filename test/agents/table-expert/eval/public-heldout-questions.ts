/**
 * The public tables' held-out part: written after the planner was tuned on public-questions.ts,
 * committed, then run once; never used for tuning. Same tables and conventions.
 */
import type { RawQuestion } from './types.js';

const SS = 'superstore';
const B = 'bank';
const ST = 'stocks';
const POP = 'country_by_population';
const LIFE = 'country_by_life_expectancy';
const TEMP = 'country_by_yearly_average_temperature';
const AREA = 'country_by_surface_area';
const CONT = 'country_by_continent';
const C = 'countries';

export const HELDOUT_PUBLIC: Array<[RawQuestion[0], RawQuestion[1], 'superstore' | 'bank' | 'stocks' | 'world' | 'countries']> = [
  ['Total sales in 2015', `SELECT sum("Sales") FROM ${SS} WHERE year("Order Date") = 2015`, 'superstore'],
  ['Profit by region', `SELECT "Region", sum("Profit") FROM ${SS} GROUP BY 1`, 'superstore'],
  ['Which category has the highest profit?', `SELECT "Category" FROM ${SS} GROUP BY 1 ORDER BY sum("Profit") DESC LIMIT 1`, 'superstore'],
  ['Average discount by category', `SELECT "Category", avg("Discount") FROM ${SS} GROUP BY 1`, 'superstore'],
  ['Number of customers by segment', `SELECT "Segment", count(DISTINCT "Customer ID") FROM ${SS} GROUP BY 1`, 'superstore'],
  ['Total quantity sold in 2016', `SELECT sum("Quantity") FROM ${SS} WHERE year("Order Date") = 2016`, 'superstore'],
  ['Sales in the South region in 2017', `SELECT sum("Sales") FROM ${SS} WHERE "Region" = 'South' AND year("Order Date") = 2017`, 'superstore'],
  ['Top 3 sub-categories by sales', `SELECT "Sub-Category", sum("Sales") AS s FROM ${SS} GROUP BY 1 ORDER BY s DESC LIMIT 3`, 'superstore'],
  ['Which state has the lowest profit?', `SELECT "State" FROM ${SS} GROUP BY 1 ORDER BY sum("Profit") ASC LIMIT 1`, 'superstore'],
  ['Monthly profit in 2016', `SELECT strftime("Order Date", '%Y-%m'), sum("Profit") FROM ${SS} WHERE year("Order Date") = 2016 GROUP BY 1`, 'superstore'],
  ['How many orders were placed in 2015?', `SELECT count(DISTINCT "Order ID") FROM ${SS} WHERE year("Order Date") = 2015`, 'superstore'],
  ['Sales of chairs by year', `SELECT year("Order Date"), sum("Sales") FROM ${SS} WHERE "Sub-Category" = 'Chairs' GROUP BY 1`, 'superstore'],
  ['Average sales in the Corporate segment', `SELECT avg("Sales") FROM ${SS} WHERE "Segment" = 'Corporate'`, 'superstore'],
  ['Which ship mode has the highest total sales?', `SELECT "Ship Mode" FROM ${SS} GROUP BY 1 ORDER BY sum("Sales") DESC LIMIT 1`, 'superstore'],
  ['Profit from Furniture in 2017', `SELECT sum("Profit") FROM ${SS} WHERE "Category" = 'Furniture' AND year("Order Date") = 2017`, 'superstore'],
  ['How many clients are divorced?', `SELECT count(*) FROM ${B} WHERE marital = 'divorced'`, 'bank'],
  ['Average balance by education', `SELECT education, avg(balance) FROM ${B} GROUP BY 1`, 'bank'],
  ['What is the maximum age?', `SELECT max(age) FROM ${B}`, 'bank'],
  ['Median age of clients', `SELECT median(age) FROM ${B}`, 'bank'],
  ['How many technicians are there?', `SELECT count(*) FROM ${B} WHERE job = 'technician'`, 'bank'],
  ['Average duration by job', `SELECT job, avg(duration) FROM ${B} GROUP BY 1`, 'bank'],
  ['How many clients were contacted by telephone?', `SELECT count(*) FROM ${B} WHERE contact = 'telephone'`, 'bank'],
  ['Which education level is the most common?', `SELECT education FROM ${B} GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, 'bank'],
  ['Total balance by marital status', `SELECT marital, sum(balance) FROM ${B} GROUP BY 1`, 'bank'],
  ['How many clients are younger than 25?', `SELECT count(*) FROM ${B} WHERE age < 25`, 'bank'],
  ['Average balance of students', `SELECT avg(balance) FROM ${B} WHERE job = 'student'`, 'bank'],
  ['Clients by contact', `SELECT contact, count(*) FROM ${B} GROUP BY 1`, 'bank'],
  ['How many stocks are listed on the NYSE?', `SELECT count(*) FROM ${ST} WHERE "Exchange" = 'NYSE'`, 'stocks'],
  ['Average market cap by sector', `SELECT "Sector", avg("Market capitalization") FROM ${ST} GROUP BY 1`, 'stocks'],
  ['What is the price of NVDA?', `SELECT "Price" FROM ${ST} WHERE "Symbol" = 'NVDA'`, 'stocks'],
  ['How many stocks are rated Buy?', `SELECT count(*) FROM ${ST} WHERE "Analyst Rating" = 'Buy'`, 'stocks'],
  ['Which sector has the highest average price?', `SELECT "Sector" FROM ${ST} GROUP BY 1 ORDER BY avg("Price") DESC NULLS LAST LIMIT 1`, 'stocks'],
  ['Number of stocks in the Finance sector', `SELECT count(*) FROM ${ST} WHERE "Sector" = 'Finance'`, 'stocks'],
  ['Average price of NASDAQ stocks', `SELECT avg("Price") FROM ${ST} WHERE "Exchange" = 'NASDAQ'`, 'stocks'],
  ['Top 5 stocks by market cap', `SELECT "Symbol", "Market capitalization" FROM ${ST} ORDER BY 2 DESC NULLS LAST LIMIT 5`, 'stocks'],
  ['Total market cap of the Utilities sector', `SELECT sum("Market capitalization") FROM ${ST} WHERE "Sector" = 'Utilities'`, 'stocks'],
  ['How many stocks cost less than $1?', `SELECT count(*) FROM ${ST} WHERE "Price" < 1`, 'stocks'],
  ['Stocks by sector', `SELECT "Sector", count(*) FROM ${ST} GROUP BY 1`, 'stocks'],
  ['What is the market cap of AAPL?', `SELECT "Market capitalization" FROM ${ST} WHERE "Symbol" = 'AAPL'`, 'stocks'],
  ['Average dividend yield of NYSE stocks', `SELECT avg("Dividend yield %, Trailing 12 months") FROM ${ST} WHERE "Exchange" = 'NYSE'`, 'stocks'],
  ['What is the population of Brazil?', `SELECT population FROM ${POP} WHERE country = 'Brazil'`, 'world'],
  ['Life expectancy in Germany', `SELECT expectancy FROM ${LIFE} WHERE country = 'Germany'`, 'world'],
  ['How many countries are in Europe?', `SELECT count(*) FROM ${CONT} WHERE continent = 'Europe'`, 'world'],
  ['What is the area of Canada?', `SELECT area FROM ${AREA} WHERE country = 'Canada'`, 'world'],
  ['Average temperature of Norway', `SELECT temperature FROM ${TEMP} WHERE country = 'Norway'`, 'world'],
  ['Which country has the smallest area?', `SELECT country FROM ${AREA} ORDER BY area ASC NULLS LAST LIMIT 1`, 'world'],
  ['Top 5 countries by life expectancy', `SELECT country, expectancy FROM ${LIFE} ORDER BY expectancy DESC NULLS LAST LIMIT 5`, 'world'],
  ['Total population of Africa', `SELECT sum(p.population) FROM ${POP} p JOIN ${CONT} c USING (country) WHERE c.continent = 'Africa'`, 'world'],
  ['Average area by continent', `SELECT c.continent, avg(a.area) FROM ${AREA} a JOIN ${CONT} c USING (country) GROUP BY 1`, 'world'],
  ['How many countries have a life expectancy above 80?', `SELECT count(*) FROM ${LIFE} WHERE expectancy > 80`, 'world'],
  ['What is the average temperature?', `SELECT avg(temperature) FROM ${TEMP}`, 'world'],
  ['What is the population of India?', `SELECT population FROM ${POP} WHERE country = 'India'`, 'world'],
  ['Which continent is Kenya in?', `SELECT continent FROM ${CONT} WHERE country = 'Kenya'`, 'world'],
  ['What is the capital of Germany?', `SELECT "Capital" FROM ${C} WHERE "Name" = 'Germany'`, 'countries'],
  ['How many countries are in Asia?', `SELECT count(*) FROM ${C} WHERE "Continent" = 'Asia'`, 'countries'],
  ['Which currency does Brazil use?', `SELECT "Currency" FROM ${C} WHERE "Name" = 'Brazil'`, 'countries'],
  ['What is the phone code of France?', `SELECT "Phone" FROM ${C} WHERE "Name" = 'France'`, 'countries'],
  ['Which countries are in Antarctica?', `SELECT "Name" FROM ${C} WHERE "Continent" = 'Antarctica'`, 'countries'],
  ['What is the native name of Japan?', `SELECT "Native" FROM ${C} WHERE "Name" = 'Japan'`, 'countries'],
  ['Which country has the code JP?', `SELECT "Name" FROM ${C} WHERE "Code" = 'JP'`, 'countries'],
  ['Number of countries by continent', `SELECT "Continent", count(*) FROM ${C} GROUP BY 1`, 'countries'],
];
