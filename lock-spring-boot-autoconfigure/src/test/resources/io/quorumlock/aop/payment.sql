create table payment (id varchar(64) primary key);
